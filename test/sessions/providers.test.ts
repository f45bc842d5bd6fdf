/**
 * The loop's scenarios against both providers' mock servers: the Anthropic Messages API and an
 * OpenAI-compatible Chat Completions server. The history, the tool calls and the usage must not
 * show which one ran; every answer is counted once, and a call a crash cut off not at all.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { INTERRUPTED_BY_RESTART } from "../../src/sessions/object/loop/steps/tool-step";
import { SUMMARY_HEADING } from "../../src/sessions/object/context/summary-prompt";
import type { Message, ToolSpec } from "../../src/session-config/types";
import type { RecordedRequest } from "../support/mock-client";
import { mockHook, uniqueKey } from "../support/mock-client";
import { createAndStart, getSession, messages, newTestSession, type TestSession, toolCalls, waitForStatus } from "../support/agent-session";
import { requestProblems, requestText, requestTurns } from "../support/request-checks";

const toolUse = (id: string, name: string, input: unknown = {}) => ({ type: "tool_use", id, name, input });
const text = (t: string) => ({ type: "text", text: t });
/** Every scripted answer reports this; the cache part is counted apart on both providers. */
const USAGE = { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 20 };
const SUMMARY_MATCH = { system_includes: "running summary" };

const PROVIDERS = [
  { name: "Anthropic", prefix: "" },
  { name: "OpenAI-compatible", prefix: "openai:" },
] as const;

const webhook = (name: string, url: string, atMostOnce: boolean): ToolSpec => ({
  type: "webhook",
  name,
  description: name,
  input_schema: { type: "object" },
  url,
  at_most_once: atMostOnce,
});

/** The session's usage must be exactly the answered calls' usage: each answer once, a cut-off call never. */
async function expectUsageOfAnsweredCalls(t: TestSession, steps: number): Promise<void> {
  const answered = (await t.model.requests()).filter((r) => r.answered_at !== undefined).length;
  const session = await getSession(t);
  expect(session.usage).toEqual({
    steps,
    input_tokens: 7 * answered,
    output_tokens: 3 * answered,
    cache_read_tokens: 20 * answered,
    cache_write_tokens: 0,
    subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
  });
}

const kinds = (history: Message[]) => history.map((m) => `${m.role}:${m.content.map((b) => b.type).join("+")}`);

describe.each(PROVIDERS)("the loop on the $name provider", ({ prefix }) => {
  const model = (t: TestSession) => `${prefix}${t.model.key}`;

  it("runs a tool round trip to done, with the same stored history and usage counted once per answer", async () => {
    const t = newTestSession();
    await t.model.script(
      { reply: { content: [text("looking"), toolUse("call_1", "get_time")], usage: USAGE } },
      { reply: { content: [text("it is noon")], usage: USAGE } },
    );
    await createAndStart(t, "what time is it?", { model: model(t), tools: [{ type: "builtin", name: "get_time" }] });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const history = await messages(t);
    expect(kinds(history)).toEqual(["user:text", "assistant:text+tool_use", "user:tool_result", "assistant:text"]);
    expect(history[1]!.content[1]).toEqual(toolUse("call_1", "get_time"));
    await expectUsageOfAnsweredCalls(t, 2);
    for (const request of await t.model.requests()) expect(requestProblems(requestTurns(request.path, request.body))).toEqual([]);
  });

  it("waits for approval, then runs the approved call", async () => {
    const t = newTestSession();
    await t.model.script(
      { reply: { content: [toolUse("call_ok", "get_time")], usage: USAGE } },
      { reply: { content: [text("approved and done")], usage: USAGE } },
    );
    await createAndStart(t, "go", { model: model(t), tools: [{ type: "builtin", name: "get_time", requires_approval: true }] });
    await waitForStatus(t, ["waiting_approval"]);
    expect(await t.stub.approve("call_ok")).toMatchObject({ ok: true });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
    expect((await toolCalls(t))[0]).toMatchObject({ id: "call_ok", status: "done" });
    await expectUsageOfAnsweredCalls(t, 2);
  });

  it("waits for a client tool's output and gives it to the model", async () => {
    const t = newTestSession();
    await t.model.script(
      { reply: { content: [toolUse("call_ask", "ask_user", { q: "colour?" })], usage: USAGE } },
      { reply: { content: [text("blue it is")], usage: USAGE } },
    );
    await createAndStart(t, "pick a colour", {
      model: model(t),
      tools: [{ type: "client", name: "ask_user", description: "asks", input_schema: { type: "object" } }],
    });
    await waitForStatus(t, ["waiting_tool_output"]);
    expect(await t.stub.submitToolOutput("call_ask", "blue", false)).toMatchObject({ ok: true });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
    expect(JSON.stringify((await t.model.requests())[1]!.body)).toContain("blue");
    await expectUsageOfAnsweredCalls(t, 2);
  });

  it("survives a crash during a tool call: an at-most-once call is not repeated, an idempotent one is", async () => {
    const t = newTestSession();
    const once = mockHook(uniqueKey("once"));
    const again = mockHook(uniqueKey("again"));
    await once.script({ hold: true });
    await again.script({ hold: true }, { status: 200, body: { output: "second try" } });
    await t.model.script(
      { reply: { content: [toolUse("call_once", "once"), toolUse("call_again", "again")], usage: USAGE } },
      { reply: { content: [text("both settled")], usage: USAGE } },
    );
    await createAndStart(t, "two calls", { model: model(t), tools: [webhook("once", once.url, true), webhook("again", again.url, false)] });
    await once.waitForRequests(1);
    await abortAllDurableObjects();
    await once.release();
    await again.waitForRequests(1);
    await abortAllDurableObjects();
    await again.release();
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
    expect(await once.requests()).toHaveLength(1);
    expect(await again.requests()).toHaveLength(2);
    expect((await toolCalls(t)).map((c) => [c.id, c.output])).toEqual([
      ["call_once", INTERRUPTED_BY_RESTART],
      ["call_again", "second try"],
    ]);
    await expectUsageOfAnsweredCalls(t, 2);
  });

  it("survives a crash during a summary: the summary is asked again, saved once, and counted once", async () => {
    const t = newTestSession();
    const steps = 6;
    await t.model.script(
      ...Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [toolUse(`call_${i}`, "get_time")], usage: USAGE } })),
      { reply: { content: [text("all looked up")], usage: USAGE } },
      { match: SUMMARY_MATCH, hang: true },
      { match: SUMMARY_MATCH, repeat: 20, reply: { content: [text("the user wants the time, looked up several times")], usage: USAGE } },
    );
    await createAndStart(t, "look up the time again and again", {
      model: model(t),
      tools: [{ type: "builtin", name: "get_time" }],
      context: { strategy: "summary", max_input_tokens: 400 },
    });
    const isSummary = (r: RecordedRequest) => JSON.stringify(r.body).includes("running summary");
    await expect.poll(async () => (await t.model.requests()).filter(isSummary).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await abortAllDurableObjects(); // the process dies while the summary call is in flight
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });

    const requests = await t.model.requests();
    const summaries = requests.filter(isSummary);
    expect(summaries[0]!.answered_at, "the first summary call was cut off").toBeUndefined();
    expect(summaries[1]!.body, "and asked again with the same input").toEqual(summaries[0]!.body);
    const loopCalls = requests.filter((r) => !isSummary(r));
    expect(loopCalls).toHaveLength(steps);
    // Every loop call after the first summary carries it, in place of the messages it covers, and the task.
    const last = requestTurns(loopCalls.at(-1)!.path, loopCalls.at(-1)!.body);
    expect(requestText(last)).toContain(SUMMARY_HEADING);
    expect(requestText(last)).toContain("look up the time again and again");
    for (const request of loopCalls) expect(requestProblems(requestTurns(request.path, request.body))).toEqual([]);
    expect(kinds(await messages(t))).toHaveLength(2 * steps);
    await expectUsageOfAnsweredCalls(t, steps);
    // One stored summary per answered summary call; each later one extends the one before.
    const answered = summaries.filter((r) => r.answered_at !== undefined);
    const saved = await runInDurableObject(t.stub, (_instance, state) =>
      state.storage.sql.exec("SELECT first_seq, last_seq FROM summaries ORDER BY id").toArray(),
    );
    expect(saved).toHaveLength(answered.length);
    expect(new Set(saved.map((row) => row.first_seq)).size).toBe(1);
    for (const request of answered.slice(1)) expect(JSON.stringify(request.body)).toContain("The summary so far");
  });
});
