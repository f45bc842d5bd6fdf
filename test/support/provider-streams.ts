/**
 * Provider streams written out in each provider's wire format, for tests that need a stream the
 * mock's scripted replies cannot shape (a tool input cut off mid-way, reasoning fields, a stop
 * reason of any name). Pure: the bodies are sent as they are by the mock's `raw` step.
 */

/** An Anthropic Messages stream: each event as `event:` and `data:` lines. */
export function anthropicSse(events: readonly [name: string, data: Record<string, unknown>][]): string {
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`).join("");
}

/** A Chat Completions stream: each chunk as a `data:` line, then `[DONE]`. */
export function chatSse(chunks: readonly unknown[], done = true): string {
  return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + (done ? "data: [DONE]\n\n" : "");
}

/** Byte offsets that cut `body` every `step` bytes: the most awkward splits a reader can meet. */
export function everyBytes(body: string, step: number): number[] {
  const size = new TextEncoder().encode(body).length;
  const cuts: number[] = [];
  for (let at = step; at < size; at += step) cuts.push(at);
  return cuts;
}

/** The events of a whole Anthropic message, from `message_start` to `message_stop`. */
export function anthropicMessage(options: {
  blocks: readonly (readonly [name: string, data: Record<string, unknown>])[];
  stopReason: string | null;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}): [string, Record<string, unknown>][] {
  const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, ...options.usage };
  return [
    [
      "message_start",
      {
        message: {
          id: "msg_test",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      },
    ],
    ["ping", {}],
    ...options.blocks.map(([name, data]) => [name, data] as [string, Record<string, unknown>]),
    ["message_delta", { delta: { stop_reason: options.stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }],
    ["message_stop", {}],
  ];
}
