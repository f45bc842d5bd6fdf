/**
 * How the loop ends or goes on for each way a provider's answer can stop, on both providers:
 * an answer cut off inside a tool call is saved as what it is and never retried, and each
 * answer's tokens are counted once.
 */
import { describe, expect, it } from "vitest";
import { createAndStart, getSession, messages, newTestSession, sessionInit, type TestSession, toolCalls, unwrap, waitForStatus } from "../support/agent-session";
import { openSse } from "../support/agent-stream";
import { deltaText } from "../support/event-client";
import { anthropicMessage, anthropicSse, chatSse, everyBytes } from "../support/provider-streams";

const TOOLS = [{ type: "builtin" as const, name: "get_time" }];
const text = (t: string) => ({ type: "text", text: t });

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: "chatcmpl-test",
  object: "chat.completion.chunk",
  created: 1,
  model: "test",
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const usageChunk = (prompt: number, completion: number) => ({ id: "chatcmpl-test", object: "chat.completion.chunk", created: 1, model: "test", choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } });

/** Creates the session idle, opens a watcher, then starts the run, so the watcher sees every delta. */
async function startWatched(t: TestSession, input: string, overrides: Parameters<typeof sessionInit>[1] = {}) {
  unwrap(await t.stub.create(sessionInit(t, overrides), null));
  const watch = await openSse(t);
  await watch.untilType("snapshot");
  unwrap(await t.stub.start(input));
  return watch;
}

describe("an answer cut off at its cap inside a tool input", () => {
  it("on Anthropic: the text is saved, the half-written call dropped, the run done with max_tokens after one call, counted once", async () => {
    const t = newTestSession();
    const body = anthropicSse(
      anthropicMessage({
        blocks: [
          ["content_block_start", { index: 0, content_block: { type: "text", text: "" } }],
          ["content_block_delta", { index: 0, delta: { type: "text_delta", text: "Let me look that up." } }],
          ["content_block_stop", { index: 0 }],
          ["content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_cut", name: "get_time", input: {} } }],
          ["content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '{"zone": "Asia/To' } }],
        ],
        stopReason: "max_tokens",
        usage: { input_tokens: 40, output_tokens: 64 },
      }),
    );
    await t.model.script({ raw: { body, split_at: everyBytes(body, 7) } });
    const watch = await startWatched(t, "time in Tokyo?", { tools: TOOLS });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "max_tokens", error: null });
    await watch.untilClosed();
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("time in Tokyo?")], [text("Let me look that up.")]]);
    expect(await toolCalls(t)).toEqual([]);
    expect(await t.model.requests()).toHaveLength(1);
    expect((await getSession(t)).usage).toMatchObject({ steps: 1, input_tokens: 40, output_tokens: 64 });
    expect(deltaText(watch.frames)).toEqual(new Map([[0, "Let me look that up."]]));
  });

  it("on a Chat Completions server: the same, for finish_reason length", async () => {
    const t = newTestSession();
    const body = chatSse([
      chunk({ role: "assistant", content: "" }),
      chunk({ content: "Let me look that up." }),
      chunk({ tool_calls: [{ index: 0, id: "call_cut", type: "function", function: { name: "get_time", arguments: "" } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"zone": "Asia/To' } }] }),
      chunk({}, "length"),
      usageChunk(40, 64),
    ]);
    await t.model.script({ raw: { body, split_at: everyBytes(body, 7) } });
    await createAndStart(t, "time in Tokyo?", { model: `openai:${t.model.key}`, tools: TOOLS });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "max_tokens", error: null });
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("time in Tokyo?")], [text("Let me look that up.")]]);
    expect(await toolCalls(t)).toEqual([]);
    expect(await t.model.requests()).toHaveLength(1);
    expect((await getSession(t)).usage).toMatchObject({ steps: 1, input_tokens: 40, output_tokens: 64 });
  });
});
