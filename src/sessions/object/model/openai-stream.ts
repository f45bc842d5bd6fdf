/**
 * Reads a streamed Chat Completions answer (Server-Sent Events, parsed by `eventsource-parser`)
 * into one complete response. Text is handed out as it arrives; tool calls, the finish reason
 * and the usage (asked for with `stream_options.include_usage`) are gathered until `[DONE]`.
 * A stream that ends without a finish reason was cut off, and an `event: error` (Groq) or an
 * `error` object in a chunk failed the answer: both are retried like a network error. Reasoning
 * comes in any of the formats `openai-reasoning.ts` reads; a legacy `function_call` (the API's
 * form before `tool_calls`, which some compatible servers still answer with) is read as a tool call.
 */
import { createParser } from "eventsource-parser";
import { ModelError, type ModelResponse, stopFields, stopReasonName } from "./provider";
import { errorTypeOf } from "./provider-errors";
import { type ChatCallParts, type ChatPart, toContent, toStopReason, toUsage } from "./openai-wire";
import { contentPieces, ReasoningDetails, reasoningOf } from "./openai-reasoning";

/** The key of a legacy `function_call` among the calls: after any `tool_calls` index a server could send. */
const LEGACY_CALL = Number.MAX_SAFE_INTEGER;

/** An answer larger than this is not an answer; the parser also stops buffering past it. */
export const MAX_STREAM_CHARS = 16 * 1024 * 1024;

export interface StreamHandlers {
  /**
   * A piece of the answer's reasoning, text or refusal as it arrives; `index` is the content
   * block it belongs to (each part's position is fixed by the order in which the parts started).
   */
  onDelta?(index: number, text: string, part: ChatPart): void;
}

interface ChunkChoice {
  delta?: {
    content?: unknown;
    refusal?: unknown;
    tool_calls?: unknown;
    function_call?: unknown;
    reasoning_content?: unknown;
    reasoning?: unknown;
    reasoning_details?: unknown;
  };
  finish_reason?: unknown;
}

export class ChatStream {
  readonly #parts: Record<ChatPart, string> = { reasoning: "", text: "", refusal: "" };
  readonly #order: ChatPart[] = [];
  #calls = new Map<number, ChatCallParts>();
  readonly #details = new ReasoningDetails();
  /** Whether the server sent reasoning as text (then `reasoning_details` carry the same, and are not shown twice). */
  #reasoningText = false;
  #finishReason: string | null = null;
  #usage: unknown = null;
  /** The answering model as the provider named it; a plain identifier only (it goes on trace spans). */
  #model: string | undefined;
  #done = false;

  constructor(private readonly handlers: StreamHandlers = {}) {}

  /** Takes one `data:` payload. */
  add(data: string): void {
    if (data === "[DONE]") {
      this.#done = true;
      return;
    }
    let chunk: { choices?: unknown; usage?: unknown; model?: unknown; error?: { type?: unknown; message?: unknown } };
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ModelError("the model's stream carried an event that is not JSON", true, 200);
    }
    if (chunk?.error) throw new ModelError(`the model's stream ended with an error (${errorTypeOf(chunk.error) ?? "error"})`, true, 200);
    if (chunk?.usage) this.#usage = chunk.usage;
    this.#model ??= stopReasonName(chunk?.model) ?? undefined;
    const choice = (Array.isArray(chunk?.choices) ? chunk.choices[0] : undefined) as ChunkChoice | undefined;
    if (!choice) return;
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning !== "") this.#reasoningText = true;
    this.#piece("reasoning", reasoning);
    this.#addDetails(delta.reasoning_details);
    for (const piece of contentPieces(delta.content)) this.#piece(piece.part, piece.text);
    if (typeof delta.refusal === "string") this.#piece("refusal", delta.refusal);
    if (Array.isArray(delta.tool_calls)) for (const part of delta.tool_calls) this.#addCall(part);
    if (delta.function_call && typeof delta.function_call === "object")
      this.#addCall({ index: LEGACY_CALL, function: delta.function_call });
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
  }

  #piece(part: ChatPart, text: string): void {
    if (text === "") return;
    if (!this.#order.includes(part)) this.#order.push(part);
    this.#parts[part] += text;
    this.handlers.onDelta?.(this.#order.indexOf(part), text, part);
  }

  /** OpenRouter's details, kept as received; their readable text is shown only when no `reasoning` text comes beside them. */
  #addDetails(details: unknown): void {
    if (!Array.isArray(details) || details.length === 0) return;
    const before = this.#details.text();
    this.#details.add(details);
    // The details' block takes its place now, even when they hold nothing readable (encrypted
    // only): the saved content keeps arrival order, so no streamed index moves.
    if (this.#details.items.length && !this.#order.includes("reasoning")) this.#order.push("reasoning");
    if (!this.#reasoningText) this.#piece("reasoning", this.#details.text().slice(before.length));
  }

  /** Calls arrive in pieces keyed by `index`: the id and name first, the arguments in fragments. */
  #addCall(part: { index?: unknown; id?: unknown; function?: { name?: unknown; arguments?: unknown } }): void {
    const index = typeof part?.index === "number" ? part.index : this.#calls.size;
    const call = this.#calls.get(index) ?? { id: null, name: "", arguments: "" };
    if (typeof part.id === "string" && part.id !== "") call.id = part.id;
    if (typeof part.function?.name === "string") call.name += part.function.name;
    if (typeof part.function?.arguments === "string") call.arguments += part.function.arguments;
    this.#calls.set(index, call);
  }

  result(newId: () => string): ModelResponse {
    if (this.#finishReason === null) throw new ModelError("the model's stream ended before the answer did", true, 200);
    // A legacy `function_call` is the call only of an answer without `tool_calls`, and only with a
    // name: beside them it is a server's empty stub or a mirror of a real call (never run twice).
    const legacy = this.#calls.get(LEGACY_CALL);
    if (legacy && (this.#calls.size > 1 || legacy.name === "")) this.#calls.delete(LEGACY_CALL);
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const parts = { ...this.#parts, order: this.#order, details: this.#details.items };
    return {
      content: toContent(parts, calls, newId),
      ...stopFields(toStopReason(this.#finishReason, parts.refusal !== ""), this.#finishReason),
      usage: toUsage(this.#usage),
      ...(this.#model ? { model: this.#model } : {}),
    };
  }

  get done(): boolean {
    return this.#done;
  }
}

/** The `type` of an `event: error`'s body, when it is JSON with one. */
function errorEventType(data: string): string | null {
  try {
    const body = JSON.parse(data) as { error?: unknown };
    return errorTypeOf(body?.error ?? body);
  } catch {
    return null;
  }
}

/** Feeds the body of a streamed answer through the parser into `stream`; rejects on a broken stream. */
export async function readChatStream(body: ReadableStream<Uint8Array>, stream: ChatStream): Promise<void> {
  let failure: unknown = null;
  let size = 0;
  const parser = createParser({
    maxBufferSize: MAX_STREAM_CHARS,
    onEvent: (event) => {
      if (failure !== null || stream.done) return;
      // Groq fails an answer it already began with an `event: error` (its SDKs throw on it).
      if (event.event === "error") {
        failure = new ModelError(`the model's stream ended with an error (${errorEventType(event.data) ?? "error"})`, true, 200);
        return;
      }
      try {
        stream.add(event.data);
      } catch (err) {
        failure = err;
      }
    },
    onError: (err) => {
      failure ??= new ModelError(`the model's stream could not be read (${err.type})`, true, 200);
    },
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_STREAM_CHARS) throw new ModelError(`the model's stream passed ${MAX_STREAM_CHARS} characters`, true, 200);
      parser.feed(value);
      if (failure !== null) throw failure;
      if (stream.done) break;
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}
