/**
 * The Anthropic Messages API provider, over plain `fetch`. It owns the wire format, the headers
 * and the mapping of every failure to a `ModelError`. It asks for a stream (`anthropic-stream.ts`
 * reads it) and still reads a whole JSON answer, as a proxy that does not stream may send.
 */
import type { ContentBlock } from "../types";
import { readMessageStream } from "./anthropic-stream";
import { mergeTurns, ModelError, type ModelProvider, type ModelRequest, type ModelResponse, parseRetryAfter, type TextDelta } from "./provider";

export const ANTHROPIC_VERSION = "2023-06-01";
/** A provider error message longer than this is cut before it is stored as the run's error. */
const MAX_ERROR_MESSAGE_CHARS = 500;

export interface AnthropicOptions {
  baseUrl: string;
  apiKey: string | undefined;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

export function anthropicProvider(options: AnthropicOptions): ModelProvider {
  const fetchImpl = options.fetchImpl ?? fetch;
  const now = options.now ?? Date.now;
  return {
    async complete(request: ModelRequest, signal: AbortSignal, onText?: (delta: TextDelta) => void): Promise<ModelResponse> {
      if (!options.apiKey) throw new ModelError("ANTHROPIC_API_KEY is not configured", false);
      let response: Response;
      try {
        response = await fetchImpl(`${options.baseUrl}/v1/messages`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-api-key": options.apiKey,
            "anthropic-version": ANTHROPIC_VERSION,
          },
          body: JSON.stringify({ ...toWire(request), stream: true }),
          signal,
        });
      } catch (err) {
        throw networkError(err, signal);
      }
      // Errors come as one JSON body even when a stream was asked for.
      if (response.ok && isEventStream(response)) return readMessageStream(response.body, signal, onText, (err) => networkError(err, signal));
      let text: string;
      try {
        text = await response.text();
      } catch (err) {
        throw networkError(err, signal);
      }
      if (!response.ok) throw httpError(response, text, now());
      return fromWire(text);
    },
  };
}

function isEventStream(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").toLowerCase().startsWith("text/event-stream");
}

function toWire(request: ModelRequest) {
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system ? { system: request.system } : {}),
    messages: mergeTurns(withoutEmptyBlocks(request.messages)),
    ...(request.tools.length ? { tools: request.tools } : {}),
  };
}

/** The API refuses empty text blocks and turns without content; neither carries meaning. */
function withoutEmptyBlocks(messages: ModelRequest["messages"]): ModelRequest["messages"] {
  return messages
    .map((m) => ({ role: m.role, content: m.content.filter((b) => b.type !== "text" || b.text.length > 0) }))
    .filter((m) => m.content.length > 0);
}

function fromWire(text: string): ModelResponse {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ModelError("the model answered with a body that is not JSON", true, 200);
  }
  const record = body as { content?: unknown; stop_reason?: unknown; usage?: { input_tokens?: unknown; output_tokens?: unknown } };
  if (!record || !Array.isArray(record.content)) {
    throw new ModelError("the model answered without a content array", true, 200);
  }
  const content: ContentBlock[] = [];
  for (const block of record.content as Record<string, unknown>[]) {
    // Empty text blocks are dropped: the API refuses them when they are sent back.
    if (block?.type === "text" && typeof block.text === "string") {
      if (block.text.length > 0) content.push({ type: "text", text: block.text });
    }
    else if (block?.type === "tool_use" && typeof block.id === "string" && typeof block.name === "string") {
      content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input ?? {} });
    }
    // Other block kinds (thinking, server tools) are not part of the platform's history.
  }
  return {
    content,
    stopReason: typeof record.stop_reason === "string" ? record.stop_reason : "other",
    usage: {
      input_tokens: toCount(record.usage?.input_tokens),
      output_tokens: toCount(record.usage?.output_tokens),
    },
  };
}

function toCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

function httpError(response: Response, text: string, now: number): ModelError {
  const status = response.status;
  const retryable = status === 408 || status === 429 || status >= 500;
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), now);
  return new ModelError(`model provider answered ${status}: ${providerMessage(text)}`, retryable, status, retryAfterMs);
}

function providerMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof body?.error?.message === "string") return body.error.message.slice(0, MAX_ERROR_MESSAGE_CHARS);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, MAX_ERROR_MESSAGE_CHARS) || "(no body)";
}

function networkError(err: unknown, signal: AbortSignal): ModelError {
  if (signal.aborted) {
    const reason = signal.reason as { name?: string } | undefined;
    if (reason?.name === "TimeoutError") return new ModelError("the model call timed out", true);
    return new ModelError("the model call was aborted", false);
  }
  const message = err instanceof Error ? err.message : String(err);
  return new ModelError(`network error calling the model: ${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}`, true);
}
