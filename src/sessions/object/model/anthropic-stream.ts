/**
 * Reads an Anthropic Messages stream (Server-Sent Events, parsed by `eventsource-parser`) into
 * the response the loop saves, handing each piece of text on as it arrives. A stream counts only
 * once its `message_stop` came: anything short of it is a retryable failure, and what was
 * assembled so far is dropped with it.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Citation, ContentBlock, ProviderBlock } from "../../../session-config/types";
import { citationsOf, isCitation, providerBlockOf, serverToolUsage } from "./anthropic-server-tools";
import { ModelError, type ModelResponse, type ModelStopReason, stopFields, stopReasonName, type TextDelta } from "./provider";
import { errorTypeOf } from "./provider-errors";

/** Far above any one event of a real stream; a line longer than this is not a model's answer. */
export const MAX_STREAM_EVENT_CHARS = 4 * 1024 * 1024;

const STOP_REASONS: Record<string, ModelStopReason> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
  stop_sequence: "stop_sequence",
  pause_turn: "pause_turn",
  model_context_window_exceeded: "context_window_exceeded",
};

/** The Messages API's `stop_reason`, normalised; anything else (or none) is `unknown`. */
export function anthropicStopReason(value: unknown): ModelStopReason {
  return (typeof value === "string" && Object.hasOwn(STOP_REASONS, value) && STOP_REASONS[value]) || "unknown";
}

/** Stream error types that repeating the call cannot fix. */
const FATAL_STREAM_ERRORS = new Set([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
]);

interface Block {
  kind: "text" | "tool_use" | "thinking" | "redacted_thinking" | "provider" | "other";
  /** The text of a text block, or the reasoning of a thinking block. */
  text: string;
  id: string;
  name: string;
  /** `input_json_delta` pieces of a tool_use block, joined. */
  json: string;
  /** The input the block started with, used when no delta follows. */
  initialInput: unknown;
  /** A thinking block's signature (`signature_delta`), or a redacted block's `data`. */
  signature: string;
  /** A text block's citations (`citations_delta`), when it was started with a list. */
  citations: Citation[] | null;
  /** A provider block as it started (its `input` completed by `input_json_delta` pieces, if any). */
  provider: ProviderBlock | null;
  /** Position in the saved content; null for a block that is not kept (yet: a text block counts from its first text). */
  position: number | null;
}

export class StreamAssembler {
  readonly #blocks = new Map<number, Block>();
  #kept = 0;
  #stopReason: ModelStopReason = "unknown";
  #providerStopReason: unknown = null;
  /** The answering model as the provider named it; a plain identifier only (it goes on trace spans). */
  #model: string | undefined;
  #inputTokens = 0;
  #outputTokens = 0;
  #cacheReadTokens = 0;
  #cacheWriteTokens = 0;
  #serverTools: { web_search_requests?: number; web_fetch_requests?: number } = {};
  #complete = false;

  constructor(
    private readonly onText: ((delta: TextDelta) => void) | undefined,
    private readonly stopped: () => boolean,
  ) {}

  /** True once `message_stop` came. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Takes one event; throws a `ModelError` for an error event or a body that is not JSON. */
  push(event: EventSourceMessage): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(event.data) as Record<string, unknown>;
    } catch {
      throw new ModelError("the model's stream carried an event that is not JSON", true, 200);
    }
    switch (event.event ?? data.type) {
      case "message_start":
        this.#usage((data.message as { usage?: unknown } | undefined)?.usage);
        this.#model = stopReasonName((data.message as { model?: unknown } | undefined)?.model) ?? this.#model;
        return;
      case "content_block_start":
        return this.#start(Number(data.index), (data.content_block ?? {}) as Record<string, unknown>);
      case "content_block_delta":
        return this.#delta(Number(data.index), (data.delta ?? {}) as Record<string, unknown>);
      case "message_delta": {
        const stop = (data.delta as { stop_reason?: unknown } | undefined)?.stop_reason;
        if (typeof stop === "string") {
          this.#stopReason = anthropicStopReason(stop);
          this.#providerStopReason = stop;
        }
        this.#usage(data.usage);
        return;
      }
      case "message_stop":
        this.#complete = true;
        return;
      case "error": {
        const type = errorTypeOf(data.error) ?? "error";
        throw new ModelError(`the model's stream failed: ${type}`, !FATAL_STREAM_ERRORS.has(type), 200);
      }
      default:
        // ping, content_block_stop, and event kinds added later carry nothing the loop keeps.
        return;
    }
  }

  /** The complete response; throws a retryable `ModelError` for a stream that did not finish. */
  result(): ModelResponse {
    if (!this.#complete) throw new ModelError("the model's stream ended before the message was complete", true, 200);
    const kept = [...this.#blocks.values()].filter((b) => b.position !== null).sort((a, b) => a.position! - b.position!);
    const usage = {
      input_tokens: this.#inputTokens,
      output_tokens: this.#outputTokens,
      cache_read_tokens: this.#cacheReadTokens,
      cache_write_tokens: this.#cacheWriteTokens,
      ...this.#serverTools,
    };
    let content: ContentBlock[];
    try {
      content = this.#content(kept);
    } catch (err) {
      // The whole answer came and was billed; it is refused, not unpaid.
      if (err instanceof ModelError) err.served = usage;
      throw err;
    }
    return { content, ...stopFields(this.#stopReason, this.#providerStopReason), usage, ...(this.#model ? { model: this.#model } : {}) };
  }

  #content(kept: Block[]): ContentBlock[] {
    const cutOff = this.#stopReason === "max_tokens" || this.#stopReason === "context_window_exceeded";
    // An answer cut off at its cap can end inside a tool call, whose input is then not JSON:
    // that call is dropped and the answer stands for what it is. Elsewhere such input is garbled.
    return kept.flatMap((block): ContentBlock[] => {
      if (block.kind === "text")
        return [{ type: "text", text: block.text, ...(block.citations?.length ? { citations: block.citations } : {}) }];
      if (block.kind === "provider") return [providerBlock(block)];
      if (block.kind === "thinking")
        return [{ type: "thinking", thinking: block.text, ...(block.signature ? { signature: block.signature } : {}) }];
      if (block.kind === "redacted_thinking") return [{ type: "redacted_thinking", data: block.signature }];
      const input = toolInput(block, cutOff);
      return input === INCOMPLETE ? [] : [{ type: "tool_use", id: block.id, name: block.name, input }];
    });
  }

  #start(index: number, block: Record<string, unknown>): void {
    const state: Block = {
      kind: "other",
      text: "",
      id: "",
      name: "",
      json: "",
      initialInput: block.input,
      signature: "",
      citations: null,
      provider: null,
      position: null,
    };
    this.#blocks.set(index, state);
    if (block.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
      Object.assign(state, { kind: "tool_use", id: block.id, name: block.name, position: this.#kept++ });
    } else if (block.type === "text") {
      state.kind = "text";
      state.citations = citationsOf(block.citations);
      if (typeof block.text === "string") this.#text(state, block.text);
    } else if (block.type === "thinking") {
      // Kept even when empty: its signature is what the API checks when it is sent back.
      Object.assign(state, {
        kind: "thinking",
        position: this.#kept++,
        signature: typeof block.signature === "string" ? block.signature : "",
      });
      if (typeof block.thinking === "string") this.#text(state, block.thinking);
    } else if (block.type === "redacted_thinking" && typeof block.data === "string") {
      Object.assign(state, { kind: "redacted_thinking", position: this.#kept++, signature: block.data });
    } else {
      // The provider's own tools' blocks, kept as given; kinds the platform does not know are not.
      const provider = providerBlockOf(block);
      if (provider) Object.assign(state, { kind: "provider", provider, position: this.#kept++ });
    }
  }

  #delta(index: number, delta: Record<string, unknown>): void {
    const state = this.#blocks.get(index);
    if (!state) throw new ModelError("the model's stream sent a delta for a block it never started", true, 200);
    if (delta.type === "text_delta" && state.kind === "text" && typeof delta.text === "string") this.#text(state, delta.text);
    else if (
      delta.type === "input_json_delta" &&
      (state.kind === "tool_use" || state.kind === "provider") &&
      typeof delta.partial_json === "string"
    )
      state.json += delta.partial_json;
    else if (delta.type === "citations_delta" && state.kind === "text" && isCitation(delta.citation))
      (state.citations ??= []).push(delta.citation);
    else if (delta.type === "thinking_delta" && state.kind === "thinking" && typeof delta.thinking === "string")
      this.#text(state, delta.thinking);
    else if (delta.type === "signature_delta" && state.kind === "thinking" && typeof delta.signature === "string")
      state.signature += delta.signature;
  }

  /** Empty text takes no position: the saved answer leaves empty text blocks out. A thinking block's text streams as reasoning. */
  #text(state: Block, text: string): void {
    if (text === "") return;
    state.position ??= this.#kept++;
    state.text += text;
    if (!this.stopped())
      this.onText?.(state.kind === "thinking" ? { index: state.position, text, kind: "reasoning" } : { index: state.position, text });
  }

  /** Counts are cumulative in the stream: the latest one given stands. */
  #usage(usage: unknown): void {
    const counts = (usage ?? {}) as {
      input_tokens?: unknown;
      output_tokens?: unknown;
      cache_read_input_tokens?: unknown;
      cache_creation_input_tokens?: unknown;
    };
    if (isCount(counts.input_tokens)) this.#inputTokens = counts.input_tokens;
    if (isCount(counts.output_tokens)) this.#outputTokens = counts.output_tokens;
    if (isCount(counts.cache_read_input_tokens)) this.#cacheReadTokens = counts.cache_read_input_tokens;
    if (isCount(counts.cache_creation_input_tokens)) this.#cacheWriteTokens = counts.cache_creation_input_tokens;
    this.#serverTools = { ...this.#serverTools, ...serverToolUsage(usage) };
  }
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * A provider block as saved: as it started, with the input its pieces wrote (a server tool's
 * call). Pieces that are not JSON leave the block as it started: the provider ran the call and
 * checks the block, so the platform changes nothing it cannot read.
 */
function providerBlock(block: Block): ProviderBlock {
  if (block.json.trim() === "") return block.provider!;
  try {
    return { ...block.provider!, input: JSON.parse(block.json) };
  } catch {
    return block.provider!;
  }
}

/** A tool input the answer's cut-off left half written. */
const INCOMPLETE = Symbol("incomplete tool input");

function toolInput(block: Block, cutOff: boolean): unknown {
  if (block.json.trim() === "") return block.initialInput ?? {};
  try {
    return JSON.parse(block.json);
  } catch {
    if (cutOff) return INCOMPLETE;
    throw new ModelError(`the model's stream sent tool input that is not JSON for "${block.name}"`, true, 200);
  }
}

/**
 * Reads `body` to the message's end. `networkError` maps a failed read (a reset, the abort) to
 * the provider's error; a stream that ends early fails in `result()`.
 */
export async function readMessageStream(
  body: ReadableStream<Uint8Array> | null,
  signal: AbortSignal,
  onText: ((delta: TextDelta) => void) | undefined,
  networkError: (err: unknown) => ModelError,
): Promise<ModelResponse> {
  const assembler = new StreamAssembler(onText, () => signal.aborted);
  let tooLong = false;
  const parser = createParser({
    onEvent: (event) => assembler.push(event),
    onError: (error) => {
      if (error.type === "max-buffer-size-exceeded") tooLong = true;
    },
    maxBufferSize: MAX_STREAM_EVENT_CHARS,
  });
  if (!body) return assembler.result();
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!assembler.complete) {
      let chunk: ReadableStreamReadResult<string>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw networkError(err);
      }
      if (signal.aborted) throw networkError(signal.reason);
      if (chunk.done) break;
      parser.feed(chunk.value);
      if (tooLong) throw new ModelError("the model's stream sent an event too large to read", true, 200);
    }
  } finally {
    // After message_stop nothing more is read; an error leaves the connection to be dropped.
    reader.cancel().catch(() => undefined);
  }
  return assembler.result();
}
