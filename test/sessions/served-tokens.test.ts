/**
 * Every answer a provider served is counted once in the session's usage, also the ones the
 * platform then discards: a whole answer refused as garbled, an answer that came back after its
 * unit went stale, an answer that failed the run's output schema.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunState } from "../../src/sessions/object/store/store";
import { createAndStart, getSession, messages, newTestSession, waitForStatus } from "../support/agent-session";
import { anthropicMessage, anthropicSse } from "../support/provider-streams";

const text = (t: string) => ({ type: "text", text: t });

describe("tokens of discarded answers", () => {
  it("counts a whole answer whose tool input is garbled, which is retried, and the answer that follows", async () => {
    const t = newTestSession();
    const garbled = anthropicSse(
      anthropicMessage({
        blocks: [
          ["content_block_start", { index: 0, content_block: { type: "tool_use", id: "toolu_garbled", name: "get_time", input: {} } }],
          ["content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: '{"zone": Tokyo}' } }],
          ["content_block_stop", { index: 0 }],
        ],
        stopReason: "tool_use",
        usage: { input_tokens: 70, output_tokens: 30 },
      }),
    );
    await t.model.script({ raw: { body: garbled } }, { reply: { content: [text("noon")], usage: { input_tokens: 11, output_tokens: 4 } } });
    await createAndStart(t, "time?", { tools: [{ type: "builtin", name: "get_time" }] });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("time?")], [text("noon")]]);
    expect(await t.model.requests()).toHaveLength(2);
    expect((await getSession(t)).usage).toEqual({
      steps: 1,
      input_tokens: 81,
      output_tokens: 34,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
  });

  it("counts an answer that came back after its unit went stale, though it is not saved", async () => {
    const t = newTestSession();
    await t.model.script(
      { delay_ms: 600, reply: { content: [text("stale answer")], usage: { input_tokens: 100, output_tokens: 50 } } },
      { reply: { content: [text("current answer")], usage: { input_tokens: 10, output_tokens: 5 } } },
    );
    await createAndStart(t, "go");
    await t.model.waitForRequests(1);
    // The run moves to a new generation while the call is out, as a start racing the answer would:
    // the call is not aborted, its answer arrives and is discarded.
    await runInDurableObject(t.stub, (_instance, state) => {
      const run = state.storage.kv.get<RunState>("run")!;
      state.storage.kv.put("run", { ...run, generation: run.generation + 1 });
    });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("go")], [text("current answer")]]);
    const requests = await t.model.requests();
    expect(requests).toHaveLength(2);
    expect(requests[0]!.answered_at).toBeDefined();
    expect((await getSession(t)).usage).toEqual({
      steps: 1,
      input_tokens: 110,
      output_tokens: 55,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
  });

  it("counts an answer that failed the output schema, and the corrected one", async () => {
    const t = newTestSession();
    await t.model.script(
      {
        reply: {
          content: [{ type: "tool_use", id: "toolu_bad", name: "respond", input: { total: "many" } }],
          usage: { input_tokens: 20, output_tokens: 8 },
        },
      },
      {
        reply: {
          content: [{ type: "tool_use", id: "toolu_good", name: "respond", input: { total: 3 } }],
          usage: { input_tokens: 30, output_tokens: 6 },
        },
      },
    );
    await createAndStart(t, "count", { output_schema: { type: "object", properties: { total: { type: "number" } }, required: ["total"] } });
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", output: { total: 3 } });
    expect((await getSession(t)).usage).toEqual({
      steps: 2,
      input_tokens: 50,
      output_tokens: 14,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
  });
});
