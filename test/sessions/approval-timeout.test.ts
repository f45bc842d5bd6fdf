/**
 * Approvals that expire, and the record of who decided each call. An expiry is a time the
 * session object's alarm is set for, so it survives a restart; it denies the call exactly as a reviewer
 * would, including taking a run slot (or queueing) to go on.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { APPROVAL_EXPIRED_OUTPUT } from "../../src/sessions/object/loop/approval-expiry";
import type { Session, ToolCall, ToolSpec } from "../../src/session-config/types";
import { callJson } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import {
  caller,
  createSession,
  getJson,
  post,
  text as textBlock,
  toolUse as toolUseBlock,
  waitForStatus as waitForApiStatus,
} from "../api/sessions/helpers";
import { alarmAt, createAndStart, getSession, newTestSession, toolCalls, waitForStatus } from "../support/agent-session";
import { openSse } from "../support/agent-stream";
import type { ToolCallEventData } from "../../src/sessions/object/events/frames";

const text = (t: string) => ({ type: "text", text: t });
const toolUse = (id: string, name = "get_time") => ({ type: "tool_use", id, name, input: {} });
const timed = (seconds: number): ToolSpec => ({
  type: "builtin",
  name: "get_time",
  requires_approval: true,
  approval_timeout_seconds: seconds,
});

/** Polls the session object's alarm until it is `expected`: the notification's hand-off sets one for now first. */
async function alarmBecomes(t: ReturnType<typeof newTestSession>, expected: number | null): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await alarmAt(t)) !== expected) {
    if (Date.now() > deadline) expect(await alarmAt(t)).toBe(expected);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The tool_result blocks of the last model request. */
async function lastToolResults(t: ReturnType<typeof newTestSession>) {
  const body = (await t.model.requests()).at(-1)!.body as {
    messages: { content: { type: string; content?: string; is_error?: boolean }[] }[];
  };
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result");
}

describe("an approval with a timeout", () => {
  it("is denied as expired after 2 s, and the run ends normally", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_late")] } }, { reply: { content: [text("understood, no time")] } });
    await createAndStart(t, "what time is it?", { tools: [timed(2)] });
    await waitForStatus(t, ["waiting_approval"]);
    const [waiting] = await toolCalls(t);
    const deadline = Date.parse(waiting!.created_at) + 2_000;
    await alarmBecomes(t, deadline);

    const done = await waitForStatus(t, ["done", "failed"], 10_000);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn" });
    expect(Date.now()).toBeGreaterThanOrEqual(deadline);
    const [call] = await toolCalls(t);
    expect(call).toMatchObject({
      status: "error",
      is_error: true,
      output: APPROVAL_EXPIRED_OUTPUT,
      decided_by: "system",
      decision: "expired",
    });
    expect(Date.parse(call!.decided_at!)).toBeGreaterThanOrEqual(deadline);
    expect(await lastToolResults(t)).toEqual([
      { type: "tool_result", tool_use_id: "toolu_late", content: APPROVAL_EXPIRED_OUTPUT, is_error: true },
    ]);
    await alarmBecomes(t, null);
  });

  it("still expires after a restart, at the same deadline", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_late")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [timed(2)] });
    await waitForStatus(t, ["waiting_approval"]);
    const deadline = Date.parse((await toolCalls(t))[0]!.created_at) + 2_000;

    await alarmBecomes(t, deadline);
    await abortAllDurableObjects(); // the process dies while the call waits
    expect(await alarmAt(t)).toBe(deadline);
    const done = await waitForStatus(t, ["done", "failed"], 10_000);
    expect(done.status).toBe("done");
    expect((await toolCalls(t))[0]).toMatchObject({ output: APPROVAL_EXPIRED_OUTPUT, decision: "expired", decided_by: "system" });
  });

  it("does not expire once approved in time, and records who approved", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_fast")] } }, { reply: { content: [text("it is noon")] } });
    await createAndStart(t, "go", { tools: [timed(1)] });
    await waitForStatus(t, ["waiting_approval"]);
    expect(await t.stub.approve("toolu_fast", "alice")).toMatchObject({ ok: true });
    await waitForStatus(t, ["done"]);
    await new Promise((resolve) => setTimeout(resolve, 1_200)); // past the deadline
    const [call] = await toolCalls(t);
    expect(call).toMatchObject({ status: "done", is_error: false, decided_by: "alice", decision: "approved" });
    expect(call!.output).toMatch(/^\d{4}-/);
    expect(Date.parse(call!.decided_at!)).toBeLessThanOrEqual(Date.parse(call!.started_at!));
  });

  it("expires while the session is paused, and the run goes on at resume", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_p")] } }, { reply: { content: [text("resumed")] } });
    await createAndStart(t, "go", { tools: [timed(1)] });
    await waitForStatus(t, ["waiting_approval"]);
    expect((await t.stub.pause()).ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await getSession(t)).status).toBe("paused");
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", decision: "expired" });
    expect((await t.stub.resume()).ok).toBe(true);
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
  });

  it("shows the decision on the event of the decision, and not on the event of the wait", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_d")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [timed(60)] });
    await waitForStatus(t, ["waiting_approval"]);
    await t.stub.deny("toolu_d", "not now", "bob");
    await waitForStatus(t, ["done"]);
    const replay = await openSse(t, { cursor: 0 });
    await replay.untilClosed();
    const calls = replay
      .stored()
      .filter((f) => f.type === "tool_call" || f.type === "tool_result")
      .map((f) => f.data as unknown as ToolCallEventData);
    expect(calls.map((c) => [c.status, c.decided_by, c.decision])).toEqual([
      ["waiting_approval", null, null],
      ["error", "bob", "denied"],
    ]);
    expect(calls[1]!.decided_at).toEqual(expect.any(String));
  });
});

describe("an expiry when the tenant has no free run slot", () => {
  it("queues the session, which goes on by itself when a slot frees", async () => {
    const who = await caller();
    const platformAdmin = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "operator" });
    expect((await callJson(`/v1/admin/tenants/${who.tenantId}/limits`, "PUT", { max_concurrent_runs: 1 }, platformAdmin)).status).toBe(200);
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUseBlock("toolu_q", "get_time")] } },
      { reply: { content: [textBlock("after the queue")] } },
    );
    const waiting = await createSession(who, { input: "go", model: model.key, tools: [timed(1)] });
    await waitForApiStatus(who, waiting.id, ["waiting_approval"]);
    const busyModel = mockModel(uniqueKey("busy"));
    await busyModel.script({ hang: true });
    const busy = await createSession(who, { input: "keep the slot", model: busyModel.key });
    expect(busy.status).toBe("running");

    const queued = await waitForApiStatus(who, waiting.id, ["queued"], 8_000);
    expect(queued.status).toBe("queued");
    const calls = await getJson<{ data: ToolCall[] }>(who, `/v1/sessions/${waiting.id}/tool-calls`);
    expect(calls.data[0]).toMatchObject({ decision: "expired", output: APPROVAL_EXPIRED_OUTPUT });

    expect((await post(who, `/v1/sessions/${busy.id}/cancel`)).status).toBe(200);
    const done = await waitForApiStatus(who, waiting.id, ["done"], 8_000);
    expect(done.stop_reason).toBe("end_turn");
  });
});

describe("decisions through the API", () => {
  it("record the subject of the principal who approved or denied", async () => {
    const alice = await caller(freshTenant(), ["sessions:read", "sessions:write"], "alice");
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUseBlock("toolu_1", "get_time"), toolUseBlock("toolu_2", "get_time")] } },
      { reply: { content: [textBlock("ok")] } },
    );
    const session: Session = await createSession(alice, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForApiStatus(alice, session.id, ["waiting_approval"]);
    expect((await post(alice, `/v1/sessions/${session.id}/tool-calls/toolu_1/approve`)).status).toBe(200);
    expect((await post(alice, `/v1/sessions/${session.id}/tool-calls/toolu_2/deny`, { reason: "once is enough" })).status).toBe(200);
    await waitForApiStatus(alice, session.id, ["done"]);
    const calls = (await getJson<{ data: ToolCall[] }>(alice, `/v1/sessions/${session.id}/tool-calls`)).data;
    expect(calls.map((c) => [c.id, c.decided_by, c.decision, typeof c.decided_at])).toEqual([
      ["toolu_1", "alice", "approved", "string"],
      ["toolu_2", "alice", "denied", "string"],
    ]);
  });

  it("leave calls that never needed a decision undecided", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_free")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }] });
    await waitForStatus(t, ["done"]);
    expect((await toolCalls(t))[0]).toMatchObject({ decided_by: null, decided_at: null, decision: null });
  });
});
