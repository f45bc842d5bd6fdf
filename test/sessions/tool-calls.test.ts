import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_BY_PAUSE } from "../../src/sessions/object/session-object";
import { INTERRUPTED_BY_RESTART, interruptedTooOften, MAX_CALL_RESTARTS } from "../../src/sessions/object/loop/steps/tool-step";
import type { ToolSpec } from "../../src/session-config/types";
import { mockHook, uniqueKey } from "../support/mock-client";
import { alarmAt, createAndStart, getSession, messages, newTestSession, toolCalls, waitForStatus } from "../support/agent-session";

const toolUse = (id: string, name: string, input: unknown = {}) => ({ type: "tool_use", id, name, input });
const text = (t: string) => ({ type: "text", text: t });
const anyObject = { type: "object" };

function webhook(name: string, url: string, extra: Partial<Extract<ToolSpec, { type: "webhook" }>> = {}): ToolSpec {
  return { type: "webhook", name, description: `the ${name} tool`, input_schema: anyObject, url, ...extra };
}

/** The tool_result blocks the model was sent in its last request. */
async function lastToolResults(t: ReturnType<typeof newTestSession>) {
  const requests = await t.model.requests();
  const body = requests.at(-1)!.body as {
    messages: { content: { type: string; tool_use_id?: string; content?: string; is_error?: boolean }[] }[];
  };
  return body.messages.at(-1)!.content.filter((b) => b.type === "tool_result");
}

describe("tool calls after a restart", () => {
  it("does not run an at-most-once call again after a restart cut it off", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("charge"));
    await hook.script({ hold: true });
    await t.model.script(
      { reply: { content: [toolUse("toolu_charge", "charge", { amount: 5 })] } },
      { reply: { content: [text("charged?")] } },
    );
    await createAndStart(t, "charge me", { tools: [webhook("charge", hook.url, { at_most_once: true })] });
    await hook.waitForRequests(1);
    expect((await toolCalls(t))[0]!.status).toBe("running");

    await abortAllDurableObjects(); // the process dies while the webhook call is in flight
    await hook.release();
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(await hook.requests()).toHaveLength(1);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", output: INTERRUPTED_BY_RESTART, is_error: true });
    expect(await lastToolResults(t)).toEqual([
      { type: "tool_result", tool_use_id: "toolu_charge", content: INTERRUPTED_BY_RESTART, is_error: true },
    ]);
  });

  it("runs an idempotent call again after a restart, with the same idempotency key", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("lookup"));
    await hook.script({ hold: true }, { status: 200, body: { output: "found it" } });
    await t.model.script({ reply: { content: [toolUse("toolu_lookup", "lookup", { q: "x" })] } }, { reply: { content: [text("done")] } });
    await createAndStart(t, "look it up", { tools: [webhook("lookup", hook.url)] });
    await hook.waitForRequests(1);

    await abortAllDurableObjects();
    await hook.release();
    await getSession(t); // wakes the object; it finds the run without work in progress
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done.status).toBe("done");
    const calls = await hook.requests();
    expect(calls).toHaveLength(2);
    const key = `${t.sessionId}:toolu_lookup`;
    expect(calls.map((c) => c.headers["idempotency-key"])).toEqual([key, key]);
    expect(calls[1]!.body).toEqual({
      tenant_id: t.tenantId,
      session_id: t.sessionId,
      created_by: "user-1",
      tool_call_id: "toolu_lookup",
      name: "lookup",
      url: hook.url,
      input: { q: "x" },
    });
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "found it" });
  });

  it.each([
    [MAX_CALL_RESTARTS - 1, "runs it again", 1],
    [MAX_CALL_RESTARTS, "stops running it", 0],
  ])("with %i restarts already behind an idempotent call found running, %s", async (restarts, _what, requests) => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("poison"));
    await hook.script({ status: 200, body: { output: "found it" } });
    await t.model.script({ reply: { content: [toolUse("toolu_poison", "lookup", { q: "x" })] } }, { reply: { content: [text("done")] } });
    await createAndStart(t, "look it up", { tools: [webhook("lookup", hook.url, { requires_approval: true })] });
    await waitForStatus(t, ["waiting_approval"]);
    // As a restart leaves it: the call marked running, cut off `restarts` times before, the run going on.
    await runInDurableObject(t.stub, async (_instance, state) => {
      state.storage.sql.exec("UPDATE tool_calls SET status = 'running', restarts = ? WHERE id = 'toolu_poison'", restarts);
      state.storage.kv.put("run", { ...state.storage.kv.get<Record<string, unknown>>("run"), status: "running" });
      await state.storage.setAlarm(Date.now());
    });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect(await hook.requests()).toHaveLength(requests);
    const output = requests === 1 ? "found it" : interruptedTooOften(MAX_CALL_RESTARTS + 1);
    expect((await toolCalls(t))[0]).toMatchObject({ output, is_error: requests === 0 });
  });

  it("reruns none of the calls that finished before a restart", async () => {
    const t = newTestSession();
    const first = mockHook(uniqueKey("first"));
    const second = mockHook(uniqueKey("second"));
    await second.script({ hold: true }, { status: 200, body: { output: "second ok" } });
    await t.model.script(
      { reply: { content: [toolUse("toolu_1", "first"), toolUse("toolu_2", "second")] } },
      { reply: { content: [text("both")] } },
    );
    await createAndStart(t, "two calls", { tools: [webhook("first", first.url), webhook("second", second.url)] });
    await second.waitForRequests(1);
    await abortAllDurableObjects();
    await second.release();
    await waitForStatus(t, ["done", "failed"]);
    expect(await first.requests()).toHaveLength(1);
    expect(await second.requests()).toHaveLength(2);
    expect((await lastToolResults(t)).map((r) => [r.tool_use_id, r.content])).toEqual([
      ["toolu_1", "webhook ok"],
      ["toolu_2", "second ok"],
    ]);
  });
});

describe("tool outputs and errors", () => {
  it("saves an instant tool's start with its result, and an I/O tool's before its request", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("lookup"));
    await hook.script({ hold: true });
    await t.model.script(
      { reply: { content: [toolUse("toolu_time", "get_time"), toolUse("toolu_look", "lookup", { q: "x" })] } },
      { reply: { content: [text("both")] } },
    );
    await createAndStart(t, "time and lookup", { tools: [{ type: "builtin", name: "get_time" }, webhook("lookup", hook.url)] });
    await hook.waitForRequests(1);
    const [time, look] = await toolCalls(t);
    expect(time).toMatchObject({ id: "toolu_time", status: "done", is_error: false });
    expect(time!.started_at).not.toBeNull();
    expect(time!.started_at! <= time!.finished_at!).toBe(true);
    // The webhook's call is marked running, durably, while its request is out.
    expect(look).toMatchObject({ id: "toolu_look", status: "running", finished_at: null });
    expect(look!.started_at).not.toBeNull();
    await hook.release();
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
  });

  it("cuts a long output to max_tool_output_chars before saving it", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("big"));
    await hook.script({ status: 200, body: { output: "x".repeat(5000) } });
    await t.model.script({ reply: { content: [toolUse("toolu_big", "big")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "big output", { tools: [webhook("big", hook.url)], limits: { max_tool_output_chars: 200 } });
    await waitForStatus(t, ["done", "failed"]);
    const [call] = await toolCalls(t);
    expect(call!.output!.length).toBeLessThanOrEqual(200);
    expect(call!.output).toMatch(/^x+\n\[output cut: 5000 characters, limit 200\]$/);
    expect((await lastToolResults(t))[0]!.content).toBe(call!.output);
  });

  it("turns invalid input and unknown tools into error results, and the run goes on", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("strict"));
    const strict = webhook("strict", hook.url, {
      input_schema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
    });
    await t.model.script(
      { reply: { content: [toolUse("toolu_bad", "strict", { n: "seven" }), toolUse("toolu_ghost", "ghost")] } },
      { reply: { content: [text("sorry")] } },
    );
    await createAndStart(t, "bad input", { tools: [strict] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect(await hook.requests()).toHaveLength(0);
    const results = await lastToolResults(t);
    expect(results[0]).toMatchObject({ tool_use_id: "toolu_bad", is_error: true, content: expect.stringContaining("invalid input") });
    expect(results[1]).toMatchObject({ tool_use_id: "toolu_ghost", is_error: true, content: 'unknown tool "ghost"' });
  });

  it("retries an idempotent webhook on a 5xx within the unit, with the same key", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("flaky"));
    await hook.script({ status: 503 }, { reset: true }, { status: 200, body: { output: "third time lucky" } });
    await t.model.script({ reply: { content: [toolUse("toolu_flaky", "flaky")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [webhook("flaky", hook.url)] });
    await waitForStatus(t, ["done", "failed"]);
    const calls = await hook.requests();
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.headers["idempotency-key"]))).toEqual(new Set([`${t.sessionId}:toolu_flaky`]));
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "third time lucky" });
  });

  it("never retries an at-most-once webhook, even on a 5xx", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("once"));
    await hook.script({ status: 503 }, { status: 200, body: { output: "would be a second charge" } });
    await t.model.script({ reply: { content: [toolUse("toolu_once", "once")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [webhook("once", hook.url, { at_most_once: true })] });
    await waitForStatus(t, ["done", "failed"]);
    expect(await hook.requests()).toHaveLength(1);
    expect((await toolCalls(t))[0]).toMatchObject({
      status: "error",
      is_error: true,
      output: expect.stringContaining("webhook answered 503"),
    });
  });

  it("gives a 4xx webhook answer to the model as an error, without retrying", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("gone"));
    await hook.script({ status: 404, body: "no such order" });
    await t.model.script({ reply: { content: [toolUse("toolu_gone", "gone")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [webhook("gone", hook.url)] });
    await waitForStatus(t, ["done", "failed"]);
    expect(await hook.requests()).toHaveLength(1);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", output: "webhook answered 404: no such order" });
  });
});

describe("approval and client tools", () => {
  it("waits for approval with no alarm set, then runs the approved call", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("deploy"));
    await t.model.script({ reply: { content: [toolUse("toolu_deploy", "deploy")] } }, { reply: { content: [text("deployed")] } });
    await createAndStart(t, "deploy", { tools: [webhook("deploy", hook.url, { requires_approval: true })] });
    await waitForStatus(t, ["waiting_approval"]);
    expect(await alarmAt(t)).toBeNull();
    expect(await hook.requests()).toHaveLength(0);
    expect(await t.stub.submitToolOutput("toolu_deploy", "x", false)).toMatchObject({
      ok: false,
      reason: "tool_call_not_waiting",
      expected: "waiting_tool_output",
    });
    expect(await t.stub.approve("toolu_nope")).toEqual({ ok: false, reason: "tool_call_not_found" });

    expect(await t.stub.approve("toolu_deploy")).toMatchObject({ ok: true });
    expect(await t.stub.approve("toolu_deploy")).toMatchObject({
      ok: false,
      reason: "tool_call_not_waiting",
      expected: "waiting_approval",
    });
    await waitForStatus(t, ["done"]);
    expect(await hook.requests()).toHaveLength(1);
  });

  it("gives a denial with its reason to the model as an error result", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("delete"));
    await t.model.script(
      { reply: { content: [toolUse("toolu_del", "delete_all"), toolUse("toolu_time", "get_time")] } },
      { reply: { content: [text("understood")] } },
    );
    await createAndStart(t, "clean up", {
      tools: [webhook("delete_all", hook.url, { requires_approval: true }), { type: "builtin", name: "get_time" }],
    });
    await waitForStatus(t, ["waiting_approval"]);
    // The call that needs no approval already ran.
    expect((await toolCalls(t)).find((c) => c.id === "toolu_time")!.status).toBe("done");
    await t.stub.deny("toolu_del", "too risky");
    await waitForStatus(t, ["done"]);
    expect(await hook.requests()).toHaveLength(0);
    const results = await lastToolResults(t);
    expect(results.map((r) => r.tool_use_id)).toEqual(["toolu_del", "toolu_time"]);
    expect(results[0]).toMatchObject({ is_error: true, content: "denied by a reviewer: too risky" });
  });

  it("collects every client tool output before the next model call", async () => {
    const t = newTestSession();
    const client = (name: string): ToolSpec => ({ type: "client", name, description: name, input_schema: anyObject });
    await t.model.script(
      { reply: { content: [toolUse("toolu_c1", "pick_file"), toolUse("toolu_c2", "confirm")] } },
      { reply: { content: [text("thanks")] } },
    );
    await createAndStart(t, "use the client", { tools: [client("pick_file"), client("confirm")] });
    await waitForStatus(t, ["waiting_tool_output"]);
    expect(await alarmAt(t)).toBeNull();
    expect(await t.stub.submitToolOutput("toolu_c1", "report.pdf", false)).toMatchObject({
      ok: true,
      value: { status: "waiting_tool_output" },
    });
    expect(await t.model.requests()).toHaveLength(1);
    expect(await t.stub.submitToolOutput("toolu_c2", "user said no", true)).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["done"]);
    expect(await lastToolResults(t)).toEqual([
      { type: "tool_result", tool_use_id: "toolu_c1", content: "report.pdf" },
      { type: "tool_result", tool_use_id: "toolu_c2", content: "user said no", is_error: true },
    ]);
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
  });

  it("asks for approval first, then the output, for a client tool that needs both", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_pay", "pay")] } }, { reply: { content: [text("paid")] } });
    await createAndStart(t, "pay", {
      tools: [{ type: "client", name: "pay", description: "pay", input_schema: anyObject, requires_approval: true }],
    });
    await waitForStatus(t, ["waiting_approval"]);
    expect(await t.stub.approve("toolu_pay")).toMatchObject({ ok: true, value: { status: "waiting_tool_output" } });
    await t.stub.submitToolOutput("toolu_pay", "receipt 42", false);
    await waitForStatus(t, ["done"]);
    await runInDurableObject(t.stub, async (_i, state) => expect(await state.storage.getAlarm()).toBeNull());
  });
});

describe("cancel during a tool call", () => {
  it("aborts the webhook call in flight and discards its result", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("slow-hook"));
    await hook.script({ hang: true });
    await t.model.script({ reply: { content: [toolUse("toolu_slow", "slow")] } });
    await createAndStart(t, "slow tool", { tools: [webhook("slow", hook.url)] });
    await hook.waitForRequests(1);
    await t.stub.cancel();
    const deadline = Date.now() + 3000;
    while (!(await hook.requests())[0]!.disconnected_at && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect((await hook.requests())[0]!.disconnected_at).toBeDefined();
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", output: "cancelled before it finished" });
    expect((await getSession(t)).status).toBe("cancelled");
    expect(await t.model.requests()).toHaveLength(1);
  });
});

describe("a tool whose schema cannot be used", () => {
  it("gives the model an error result instead of failing the session", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("bad-schema"));
    const broken = webhook("broken", hook.url, { input_schema: { type: "object", properties: { q: { type: "string", pattern: "(" } } } });
    await t.model.script({ reply: { content: [toolUse("toolu_broken", "broken", { q: "x" })] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [broken] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect(await hook.requests()).toHaveLength(0);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", output: expect.stringContaining("input_schema cannot be used") });
  });

  it("never runs a pattern stored before RE2 was required (a lookahead), and says why", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("legacy-schema"));
    const legacy = webhook("legacy", hook.url, {
      input_schema: { type: "object", properties: { q: { type: "string", pattern: "^(?=a)(a+)+$" } } },
    });
    await t.model.script(
      { reply: { content: [toolUse("toolu_legacy", "legacy", { q: "a".repeat(40) + "!" })] } },
      { reply: { content: [text("ok")] } },
    );
    await createAndStart(t, "go", { tools: [legacy] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect(await hook.requests()).toHaveLength(0);
    expect((await toolCalls(t))[0]!.output).toContain("properties/q/pattern: Lookahead and lookbehind are not supported");
  });
});

describe("a catastrophic pattern with a crafted input", () => {
  it("answers the model at once that the input does not match, and the run goes on", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("evil-schema"));
    const evil = webhook("evil", hook.url, {
      input_schema: { type: "object", properties: { q: { type: "string", pattern: "^(a+)+$" } }, required: ["q"] },
    });
    // About 2^40 steps on a backtracking engine: hours, with the isolate blocked all along.
    await t.model.script(
      { reply: { content: [toolUse("toolu_evil", "evil", { q: "a".repeat(40) + "!" })] } },
      { reply: { content: [text("ok")] } },
    );
    await createAndStart(t, "go", { tools: [evil] });
    expect((await waitForStatus(t, ["done", "failed"])).status).toBe("done");
    expect(await hook.requests()).toHaveLength(0);
    expect((await toolCalls(t))[0]).toMatchObject({
      status: "error",
      output: 'invalid input: #/q: String does not match pattern "^(a+)+$".',
    });
  });
});

describe("pause during a tool call", () => {
  it("does not repeat an at-most-once call cut off by a pause", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("pause-once"));
    await hook.script({ hang: true });
    await t.model.script({ reply: { content: [toolUse("toolu_po", "po")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [webhook("po", hook.url, { at_most_once: true })] });
    await hook.waitForRequests(1);
    await t.stub.pause();
    expect((await toolCalls(t))[0]).toMatchObject({ status: "error", output: INTERRUPTED_BY_PAUSE });
    await t.stub.resume();
    await waitForStatus(t, ["done"]);
    expect(await hook.requests()).toHaveLength(1);
  });

  it("runs an idempotent call cut off by a pause again on resume, with the same key", async () => {
    const t = newTestSession();
    const hook = mockHook(uniqueKey("pause-idem"));
    await hook.script({ hang: true }, { status: 200, body: { output: "second try" } });
    await t.model.script({ reply: { content: [toolUse("toolu_pi", "pi")] } }, { reply: { content: [text("ok")] } });
    await createAndStart(t, "go", { tools: [webhook("pi", hook.url)] });
    await hook.waitForRequests(1);
    await t.stub.pause();
    await t.stub.resume();
    await waitForStatus(t, ["done"]);
    const calls = await hook.requests();
    expect(calls.map((c) => c.headers["idempotency-key"])).toEqual([`${t.sessionId}:toolu_pi`, `${t.sessionId}:toolu_pi`]);
    expect((await toolCalls(t))[0]).toMatchObject({ status: "done", output: "second try" });
  });
});
