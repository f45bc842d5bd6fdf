/**
 * Reads a streamed Chat Completions answer (Server-Sent Events, parsed by `eventsource-parser`)
 * into one complete response. Text is handed out as it arrives; tool calls, the finish reason
 * and the usage (asked for with `stream_options.include_usage`) are gathered until `[DONE]`.
 * A stream that ends without a finish reason was cut off and is retried like a network error.
 */
import { createParser } from "eventsource-parser";
import { ModelError, type ModelResponse, stopFields, stopReasonName } from "./provider";
import { errorTypeOf } from "./provider-errors";
import { type ChatCallParts, type ChatPart, reasoningOf, toContent, toStopReason, toUsage } from "./openai-wire";

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
  delta?: { content?: unknown; refusal?: unknown; tool_calls?: unknown; reasoning_content?: unknown; reasoning?: unknown };
  finish_reason?: unknown;
}

export class ChatStream {
  readonly #parts: Record<ChatPart, string> = { reasoning: "", text: "", refusal: "" };
  readonly #order: ChatPart[] = [];
  #calls = new Map<number, ChatCallParts>();
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
    this.#piece("reasoning", reasoningOf(delta));
    if (typeof delta.content === "string") this.#piece("text", delta.content);
    if (typeof delta.refusal === "string") this.#piece("refusal", delta.refusal);
    if (Array.isArray(delta.tool_calls)) for (const part of delta.tool_calls) this.#addCall(part);
    if (typeof choice.finish_reason === "string") this.#finishReason = choice.finish_reason;
  }

  #piece(part: ChatPart, text: string): void {
    if (text === "") return;
    if (!this.#order.includes(part)) this.#order.push(part);
    this.#parts[part] += text;
    this.handlers.onDelta?.(this.#order.indexOf(part), text, part);
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
    const calls = [...this.#calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    const parts = { ...this.#parts, order: this.#order };
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

/** Feeds the body of a streamed answer through the parser into `stream`; rejects on a broken stream. */
export async function readChatStream(body: ReadableStream<Uint8Array>, stream: ChatStream): Promise<void> {
  let failure: unknown = null;
  let size = 0;
  const parser = createParser({
    maxBufferSize: MAX_STREAM_CHARS,
    onEvent: (event) => {
      if (failure !== null || stream.done) return;
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
