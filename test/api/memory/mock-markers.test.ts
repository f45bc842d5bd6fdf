/**
 * The mock model's markers against the real platform: `[mock:memory]` saves in the session's own
 * namespace (as its grant fills it from metadata) and a later session recalls it, `[mock:subagent]`
 * hands the text to the agent tool, `[mock:approval]` makes a call that waits for approval.
 */
import { describe, expect, it } from "vitest";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { call } from "../../support/api";
import { caller, createSession, getJson, waitForStatus } from "../sessions/helpers";
import { agentOn, agentTool, author, PROVIDERS } from "../subagents/helpers";

const GRANT = { namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}"]] };

describe("the mock model's markers", () => {
  it("[mock:memory] saves a statement in the session's own namespace, and a later session recalls it", async () => {
    const who = await caller(undefined, ["sessions:read", "sessions:write", "memory:read", "memory:write"]);
    const model = mockModel(uniqueKey("model")).key;
    const saying = await createSession(who, {
      model,
      memory: GRANT,
      metadata: { user_id: "u_123" },
      input: "[mock:memory] I prefer French.",
    });
    expect(await waitForStatus(who, saying.id, ["done", "failed"])).toMatchObject({
      status: "done",
      answer: "Saved to memory: I prefer French.",
    });
    const item = await getJson<{ value: unknown }>(who, "/v1/memory/items?namespace=users.u_123&key=note");
    expect(item.value).toEqual({ note: "I prefer French." });

    const asking = await createSession(who, {
      model,
      memory: GRANT,
      metadata: { user_id: "u_123" },
      input: "[mock:memory] Which language do I prefer?",
    });
    expect(await waitForStatus(who, asking.id, ["done", "failed"])).toMatchObject({
      status: "done",
      answer: "From memory: I prefer French.",
    });
    // Another user's session reads its own namespace only.
    const other = await createSession(who, {
      model,
      memory: GRANT,
      metadata: { user_id: "u_456" },
      input: "[mock:memory] Which language do I prefer?",
    });
    expect((await waitForStatus(who, other.id, ["done", "failed"])).answer).toMatch(/^Nothing in memory matches/);
  });

  it("[mock:subagent] hands the text, without its marker, to the agent tool and answers with the child's answer", async () => {
    const who = await author();
    const child = await agentOn(who, PROVIDERS[0]);
    const parent = await createSession(who, {
      model: mockModel(uniqueKey("model")).key,
      tools: [agentTool("research", child.id)],
      input: "[mock:subagent] Summarise the bicycle's history.",
    });
    const done = await waitForStatus(who, parent.id, ["done", "failed"], 20_000);
    // The tests' mock says "ok" for a request without a marker: the child got none.
    expect(done).toMatchObject({ status: "done", answer: "research answered: ok" });
    const [request] = await child.model.requests();
    expect(JSON.stringify(request!.body)).toContain("Summarise the bicycle's history.");
    expect(JSON.stringify(request!.body)).not.toContain("[mock:");
  });

  it("[mock:approval] calls the first tool declared, which waits for approval", async () => {
    const who = await caller();
    const session = await createSession(who, {
      model: mockModel(uniqueKey("model")).key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
      input: "[mock:approval] What time is it in Paris?",
    });
    expect(await waitForStatus(who, session.id, ["waiting_approval", "done", "failed"])).toMatchObject({ status: "waiting_approval" });
    const calls = await getJson<{ data: { id: string; name: string }[] }>(who, `/v1/sessions/${session.id}/tool-calls`);
    expect(calls.data.map((c) => c.name)).toEqual(["get_time"]);
    const approved = await call(`/v1/sessions/${session.id}/tool-calls/${calls.data[0]!.id}/approve`, {
      method: "POST",
      headers: who.headers,
    });
    expect(approved.status).toBe(200);
    expect((await waitForStatus(who, session.id, ["done", "failed"])).answer).toMatch(/^get_time answered: /);
  });
});
