/**
 * The context window in a running session object: what each model call is sent under each strategy,
 * what the fit reads from storage, and the stop reasons and token counts that go with it.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { estimateJsonTokens, estimateMessageTokens, estimateTextTokens } from "../../src/sessions/object/context/estimate";
import { decideContext } from "../../src/sessions/object/context/plan";
import { SessionStore, type RunState } from "../../src/sessions/object/store/store";
import type { ContentBlock } from "../../src/session-config/types";
import {
  createAndStart,
  getSession,
  messages,
  newTestSession,
  type sessionInit,
  type TestSession,
  toolCalls,
  waitForStatus,
} from "../support/agent-session";
import { requestProblems, requestText } from "../support/request-checks";

const toolUse = (id: string, name = "get_time", input: unknown = {}) => ({ type: "tool_use" as const, id, name, input });
const text = (t: string) => ({ type: "text" as const, text: t });
const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];

interface SentBody {
  system?: { text: string }[];
  tools?: unknown[];
  messages: { role: string; content: (ContentBlock & { cache_control?: unknown })[] }[];
}

/** The platform's own estimate of a request as it went out (cache marks left out). */
function estimateOf(body: SentBody): number {
  const strip = (blocks: SentBody["messages"][number]["content"]) =>
    blocks.map(({ cache_control: _mark, ...block }) => block as ContentBlock);
  const system = body.system?.map((b) => b.text).join("") ?? "";
  const tools = (body.tools ?? []).map((tool) => {
    const { cache_control: _mark, ...rest } = tool as Record<string, unknown>;
    return rest;
  });
  return (
    (system ? estimateTextTokens(system) : 0) +
    (tools.length ? estimateJsonTokens(tools) : 0) +
    body.messages.reduce((sum, m) => sum + estimateMessageTokens(strip(m.content)), 0)
  );
}

async function longRun(t: TestSession, steps: number, context: Record<string, unknown>): Promise<SentBody[]> {
  await t.model.script(
    ...Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [text(`step ${i} of the work`), toolUse(`toolu_${i}`)] } })),
    { reply: { content: [text("finished")] } },
  );
  await createAndStart(t, "THE TASK: keep checking the time", {
    tools: GET_TIME,
    context: context as never,
    limits: { max_steps_per_run: steps },
  });
  expect(await waitForStatus(t, ["done", "failed"], 30_000)).toMatchObject({ status: "done", stop_reason: "end_turn" });
  return (await t.model.requests()).map((r) => r.body as SentBody);
}

describe("the context window", () => {
  it("auto: every call is a valid history under the budget that carries the task", async () => {
    const t = newTestSession();
    const sent = await longRun(t, 30, { strategy: "auto", max_input_tokens: 1_200 });
    for (const [i, body] of sent.entries()) {
      expect([i, requestProblems(body.messages)]).toEqual([i, []]);
      expect(estimateOf(body)).toBeLessThanOrEqual(1_200);
      expect(requestText(body.messages)).toContain("THE TASK");
    }
    // The window slid: the last call does not hold the first steps any more.
    expect(JSON.stringify(sent.at(-1))).not.toContain("toolu_0");
    expect(sent.at(-1)!.messages.length).toBeLessThan(sent.at(-2)!.messages.length + 2);
    expect(await messages(t)).toHaveLength(60);
  });

  it("last_messages: the task and a fixed count of the newest messages", async () => {
    const t = newTestSession();
    const sent = await longRun(t, 8, { strategy: "last_messages", last_messages: 4 });
    const last = sent.at(-1)!;
    expect(requestProblems(last.messages)).toEqual([]);
    // The task (one user turn, joined with nothing else), then the four newest messages.
    const blocks = last.messages.flatMap((m) => m.content);
    expect(blocks[0]).toMatchObject(text("THE TASK: keep checking the time"));
    expect(blocks.filter((b) => b.type === "tool_use").map((b) => (b as { id: string }).id)).toEqual(["toolu_5", "toolu_6"]);
  });

  it("reads only the estimates the window needs and loads only the messages it chose", async () => {
    const t = newTestSession();
    await createAndStart(t, "seed", { context: { strategy: "auto", max_input_tokens: 600 } });
    await waitForStatus(t, ["done"]);
    await runInDurableObject(t.stub, (_instance, state) => {
      const store = new SessionStore(state.storage);
      for (let i = 0; i < 400; i++) {
        store.appendMessage("assistant", [text(`answer ${i}`), toolUse(`toolu_${i}`)], "2030-01-01T00:00:00.000Z");
        store.appendMessage(
          "user",
          [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `result ${i}` }],
          "2030-01-01T00:00:00.000Z",
        );
      }
      let metasRead = 0;
      const counting = Object.create(store) as SessionStore;
      counting.metaNewestFirst = function* (after?: number) {
        for (const meta of store.metaNewestFirst(after)) {
          metasRead++;
          yield meta;
        }
      };
      const session = state.storage.kv.get<ReturnType<typeof sessionInit> & { created_at: string }>("session")!;
      const run = state.storage.kv.get<RunState>("run")!;
      const decision = decideContext({ store: counting, session, run, catalog: null, tools: [] }, 100);
      expect(decision.kind).toBe("call");
      if (decision.kind !== "call") return;
      expect(metasRead).toBeLessThan(40);
      const loaded = store.messagesForWindow(
        decision.startSeq,
        decision.pinned.map((m) => m.seq),
      );
      expect(loaded.length).toBeLessThan(metasRead + 2);
      expect(loaded[0]!.content).toEqual([text("seed")]);
    });
  });

  it("learns from the provider's count and sends a shorter window after a call it counted high", async () => {
    const t = newTestSession();
    await t.model.script(
      ...Array.from({ length: 12 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`)] } })),
      { reply: { content: [toolUse("toolu_big")], usage: { input_tokens: 100_000 } } },
      { reply: { content: [text("done")] } },
    );
    await createAndStart(t, "task", { tools: GET_TIME, context: { strategy: "auto", max_input_tokens: 2_000 } });
    await waitForStatus(t, ["done", "failed"], 20_000);
    const sent = (await t.model.requests()).map((r) => r.body as SentBody);
    // The 13th call was counted at 100,000 tokens: the 14th gets the window of a four times smaller budget.
    expect(estimateOf(sent.at(-1)!)).toBeLessThanOrEqual(2_000 / 4);
    expect(sent.at(-1)!.messages.length).toBeLessThan(sent.at(-2)!.messages.length);
  });
});

describe("stop reasons", () => {
  it("ends a run whose answer was cut off at max_tokens with max_tokens, running none of its tool calls", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [text("a long answer that"), toolUse("toolu_half")], stop_reason: "max_tokens" } });
    await createAndStart(t, "write a lot", { tools: GET_TIME });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "max_tokens" });
    expect((await messages(t)).at(-1)!.content).toEqual([text("a long answer that")]);
    expect(await toolCalls(t)).toEqual([]);
  });

  it("reports a refusal as refusal", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [text("I can't help with that.")], stop_reason: "refusal" } });
    await createAndStart(t, "something bad");
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "refusal" });
  });

  it("counts prompt-cache reads and writes against the session's token budget", async () => {
    const t = newTestSession();
    await t.model.script({
      reply: {
        content: [toolUse("toolu_1")],
        usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 600, cache_creation_input_tokens: 400 },
      },
    });
    await createAndStart(t, "go", { tools: GET_TIME, limits: { max_tokens_per_session: 1_000 } });
    const done = await waitForStatus(t, ["waiting_budget", "done", "failed"]);
    expect(done).toMatchObject({ status: "waiting_budget", stop_reason: null });
    expect(done.usage).toEqual({
      steps: 1,
      input_tokens: 10,
      output_tokens: 5,
      cache_read_tokens: 600,
      cache_write_tokens: 400,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    expect(await t.model.requests()).toHaveLength(1);
    expect((await getSession(t)).usage.cache_read_tokens).toBe(600);
  });
});
