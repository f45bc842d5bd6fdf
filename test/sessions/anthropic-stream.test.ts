/** The Anthropic stream reader on its own: events in, the saved response and text pieces out. */
import { describe, expect, it } from "vitest";
import { StreamAssembler } from "../../src/sessions/object/model/anthropic-stream";
import { ModelError, type TextDelta } from "../../src/sessions/object/model/provider";

const ev = (event: string, data: Record<string, unknown>) => ({ event, data: JSON.stringify({ type: event, ...data }) });
const start = (input = 12) => ev("message_start", { message: { usage: { input_tokens: input, output_tokens: 1 } } });
const stop = (reason = "end_turn", output = 7) => [
  ev("message_delta", { delta: { stop_reason: reason }, usage: { output_tokens: output } }),
  ev("message_stop", {}),
];
const textBlock = (index: number, ...pieces: string[]) => [
  ev("content_block_start", { index, content_block: { type: "text", text: "" } }),
  ...pieces.map((text) => ev("content_block_delta", { index, delta: { type: "text_delta", text } })),
  ev("content_block_stop", { index }),
];

function assemble(events: { event: string; data: string }[]) {
  const deltas: TextDelta[] = [];
  const assembler = new StreamAssembler(
    (d) => deltas.push(d),
    () => false,
  );
  for (const event of events) assembler.push(event);
  return { deltas, result: () => assembler.result() };
}

describe("StreamAssembler", () => {
  it("assembles thinking, text and tool use, with usage from the stream and deltas at the saved positions", () => {
    const { deltas, result } = assemble([
      start(),
      ev("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
      ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "hm" } }),
      ev("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "m" } }),
      ev("content_block_delta", { index: 0, delta: { type: "signature_delta", signature: "EqQBCgIYAhIM" } }),
      ev("content_block_stop", { index: 0 }),
      ...textBlock(1),
      ...textBlock(2, "Let me ", "look."),
      ev("content_block_start", { index: 3, content_block: { type: "tool_use", id: "toolu_1", name: "lookup", input: {} } }),
      ev("content_block_delta", { index: 3, delta: { type: "input_json_delta", partial_json: '{"q":' } }),
      ev("content_block_delta", { index: 3, delta: { type: "input_json_delta", partial_json: '"tokyo"}' } }),
      ...stop("tool_use", 30),
    ]);
    expect(result()).toEqual({
      content: [
        { type: "thinking", thinking: "hmm", signature: "EqQBCgIYAhIM" },
        { type: "text", text: "Let me look." },
        { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "tokyo" } },
      ],
      stopReason: "tool_use",
      usage: { input_tokens: 12, output_tokens: 30, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    expect(deltas).toEqual([
      { index: 0, text: "hm", kind: "reasoning" },
      { index: 0, text: "m", kind: "reasoning" },
      { index: 1, text: "Let me " },
      { index: 1, text: "look." },
    ]);
  });

  it("fails retryably when the stream ends before message_stop, and on an overloaded error", () => {
    const { result } = assemble([start(), ...textBlock(0, "half")]);
    expect(() => result()).toThrow(ModelError);
    try {
      result();
    } catch (error) {
      expect((error as ModelError).retryable).toBe(true);
    }
    expect(() => assemble([start(), ev("error", { error: { type: "overloaded_error", message: "busy" } })])).toThrow(
      expect.objectContaining({ retryable: true }),
    );
    expect(() => assemble([start(), ev("error", { error: { type: "invalid_request_error", message: "no" } })])).toThrow(
      expect.objectContaining({ retryable: false }),
    );
    expect(() => assemble([start(), { event: "content_block_delta", data: "{not json" }])).toThrow(
      expect.objectContaining({ retryable: true }),
    );
  });

  it("drops a tool call that max_tokens cut off mid-input, keeping the text, but fails on garbled input otherwise", () => {
    const cut = (reason: string) =>
      assemble([
        start(),
        ...textBlock(0, "Checking."),
        ev("content_block_start", { index: 1, content_block: { type: "tool_use", id: "toolu_cut", name: "lookup", input: {} } }),
        ev("content_block_delta", { index: 1, delta: { type: "input_json_delta", partial_json: '{"q": "tok' } }),
        ...stop(reason, 50),
      ]).result;
    expect(cut("max_tokens")()).toMatchObject({
      content: [{ type: "text", text: "Checking." }],
      stopReason: "max_tokens",
      usage: { output_tokens: 50 },
    });
    expect(() => cut("tool_use")()).toThrow(expect.objectContaining({ retryable: true }));
  });

  it("gives no text once stopped", () => {
    const deltas: TextDelta[] = [];
    let stopped = false;
    const assembler = new StreamAssembler(
      (d) => deltas.push(d),
      () => stopped,
    );
    for (const event of [start(), ...textBlock(0, "a")]) assembler.push(event);
    stopped = true;
    assembler.push(ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: "b" } }));
    expect(deltas).toEqual([{ index: 0, text: "a" }]);
  });
});
