/**
 * A decision on a tool call is one call to the session object: the object applies the access
 * rule itself (sessions/viewer.ts) instead of the gateway reading the session first. The session
 * namespace is wrapped to record the methods the gateway calls on it.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/api/app";
import { BASE_URL } from "../../support/api";
import { recordingNamespace } from "../../support/recording-namespace";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, createSession, text, toolCallsOf, waitForStatus } from "./helpers";

async function decide(who: Caller, path: string, body: unknown): Promise<{ status: number; calls: string[] }> {
  const calls: string[] = [];
  const ctx = createExecutionContext();
  const request = new Request(`${BASE_URL}${path}`, {
    method: "POST",
    headers: { ...who.headers, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const res = await createApp().fetch(request, { ...env, SESSION: recordingNamespace(env.SESSION, calls) }, ctx);
  await waitOnExecutionContext(ctx);
  await res.arrayBuffer();
  return { status: res.status, calls };
}

/** A session of `owner` waiting on call `toolu_1`: an approval, or a client tool's output. */
async function waitingSession(owner: Caller, kind: "approval" | "client"): Promise<string> {
  const model = mockModel(uniqueKey("model"));
  const name = kind === "approval" ? "get_time" : "ask";
  await model.script(
    { reply: { content: [{ type: "tool_use", id: "toolu_1", name, input: {} }] } },
    { reply: { content: [text("done")] } },
  );
  const tool =
    kind === "approval"
      ? { type: "builtin", name, requires_approval: true }
      : { type: "client", name, description: "asks", input_schema: { type: "object" } };
  const session = await createSession(owner, { input: "go", model: model.key, tools: [tool] });
  await waitForStatus(owner, session.id, [kind === "approval" ? "waiting_approval" : "waiting_tool_output"]);
  return session.id;
}

describe("a decision on a tool call: the gateway's calls to the session object", () => {
  it.each([
    ["approve", "approval", {}],
    ["deny", "approval", { reason: "no" }],
    ["output", "client", { output: "blue" }],
  ] as const)("%s is one call", async (action, kind, body) => {
    const owner = await caller();
    const id = await waitingSession(owner, kind);
    const { status, calls } = await decide(owner, `/v1/sessions/${id}/tool-calls/toolu_1/${action}`, body);
    expect(status).toBe(200);
    expect(calls).toEqual([action === "output" ? "submitToolOutput" : action]);
  });

  it("is refused to a member who did not create the session, as if it did not exist, and changes nothing", async () => {
    const owner = await caller();
    const id = await waitingSession(owner, "approval");
    const other = await caller(owner.tenantId, undefined, "user-2");
    const { status, calls } = await decide(other, `/v1/sessions/${id}/tool-calls/toolu_1/approve`, {});
    expect(status).toBe(404);
    expect(calls).toEqual(["approve"]);
    expect((await toolCallsOf(owner, id))[0]).toMatchObject({ id: "toolu_1", status: "waiting_approval", decided_by: null });
  });
});
