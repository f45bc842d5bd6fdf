/**
 * The model provider interface the loop talks to. A provider turns the platform's
 * messages into its wire format and back, streams the answer's text as it is written, and
 * classifies every failure as retryable or fatal, so the loop's retry policy never looks at a
 * provider's status codes itself.
 */
import type {
  ContentBlock,
  ImageMediaType,
  OutputSchema,
  ProviderBlock,
  ProviderToolSpec,
  ReasoningSettings,
  RedactedThinkingBlock,
  Role,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
} from "../../../session-config/types";

export interface ToolDefinition {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** What a model request carries when its answer must be valid for a schema (see output/output-tool.ts). */
export interface OutputRequest {
  schema: OutputSchema;
  /** The tool whose input is the answer, for providers that take the answer as a tool call. */
  tool: ToolDefinition;
}

/** An image as a request carries it: its bytes, read from the session's store for this call. */
export interface ModelImageBlock {
  type: "image";
  source: { type: "base64"; media_type: ImageMediaType; data: string };
}

/** A content block of a request: the stored blocks, with every image's bytes in place of its reference. */
export type ModelBlock =
  TextBlock | ToolUseBlock | ToolResultBlock | ModelImageBlock | ThinkingBlock | RedactedThinkingBlock | ProviderBlock;

export interface ModelMessage {
  role: Role;
  content: ModelBlock[];
  /**
   * The request up to the end of this message is a stable prefix (the task, a summary): a
   * provider with prompt caching marks a cache breakpoint here. The system prompt and the tool
   * definitions are always stable and need no flag.
   */
  cache?: boolean;
}

export interface ModelRequest {
  /** The provider's own model id (without the `anthropic:` or `openai:` prefix). */
  model: string;
  system: string | null;
  messages: ModelMessage[];
  tools: ToolDefinition[];
  /** The provider's own tools the session declared (`type: "provider"`); only a provider the catalog says has them gets any. */
  providerTools?: ProviderToolSpec[];
  maxTokens: number;
  /**
   * The answer must be JSON valid for this schema: each provider asks for it its own way (a
   * forced output tool, `response_format`). The platform judges the answer either way.
   */
  output?: OutputRequest;
  /** The session's reasoning settings (see reasoning.ts); absent: the model's default, no thinking on Anthropic. */
  reasoning?: ReasoningSettings;
  /** The W3C `traceparent` of the call's span when the run is traced; sent as a header, never in the body. */
  traceparent?: string;
}

/**
 * Why the model stopped, normalised across providers. `pause_turn`: the provider paused a long
 * turn and continues it when the answer so far is sent back; `context_window_exceeded`: the
 * answer filled the model's context window; `unknown`: a reason this platform does not know
 * (`ModelResponse.providerStopReason` names it).
 */
export type ModelStopReason =
  "end_turn" | "tool_use" | "max_tokens" | "refusal" | "stop_sequence" | "pause_turn" | "context_window_exceeded" | "unknown";

/** A provider's stop reason that may be shown: a plain identifier; anything else is not named. */
/** The answering model's name as a response field, when the provider gave a plain identifier. */
export function answeringModel(value: unknown): { model?: string } {
  const name = stopReasonName(value);
  return name ? { model: name } : {};
}

export function stopReasonName(value: unknown): string | null {
  return typeof value === "string" && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(value) ? value : null;
}

/** A response's stop fields: an `unknown` one names the provider's own reason. */
export function stopFields(stopReason: ModelStopReason, providerValue: unknown): Pick<ModelResponse, "stopReason" | "providerStopReason"> {
  return stopReason === "unknown" ? { stopReason, providerStopReason: stopReasonName(providerValue) } : { stopReason };
}

/** A call's token counts; the cached parts apart from `input_tokens` (see `Usage`), and its provider tools' requests where reported. */
export type CallUsage = Omit<Usage, "steps">;

export interface ModelResponse {
  content: ContentBlock[];
  stopReason: ModelStopReason;
  /** The provider's own name of an `unknown` stop reason, when it is a plain identifier. */
  providerStopReason?: string | null;
  usage: CallUsage;
  /** The model that answered, as the provider named it (a plain identifier), when it did. */
  model?: string;
}

/**
 * A piece of text while the model writes it. `index` is the position, in the resolved
 * response's `content`, of the block the piece belongs to (blocks the response leaves out, such
 * as empty text, take no position). `kind: "reasoning"` marks the text of a thinking block,
 * which is never answer text; answer text has no `kind`.
 */
export interface TextDelta {
  index: number;
  text: string;
  kind?: "reasoning";
}

export interface ModelProvider {
  /**
   * Calls the model and resolves with the complete response, or rejects with a `ModelError`.
   *
   * Streaming: given `onText`, a provider that can stream asks its API to, and calls `onText` with each piece of
   * text as it arrives, in order, before the promise settles. For a resolved response, the
   * pieces given for `index` joined are exactly the text of `content[index]`. Usage comes from
   * the stream. The stream is read to its end-of-message marker: one that breaks off, or ends
   * without it, rejects with a retryable `ModelError` (status 200), and the pieces already given
   * are void (the caller keeps nothing of them). Aborting `signal` stops the call and its stream
   * at once; no `onText` call follows the abort. A provider that cannot stream resolves
   * without calling `onText`. Without `onText` the provider asks for the whole answer in one body,
   * which costs less to receive than a stream. `onText` carries prose only: the answer to a request with
   * `output` (a forced tool's input, a `response_format` text) is never passed to it.
   */
  complete(request: ModelRequest, signal: AbortSignal, onText?: (delta: TextDelta) => void): Promise<ModelResponse>;
}

/**
 * A failed model call. `retryable` covers 429, 5xx, network errors, timeouts and garbled
 * answers; anything else (a 4xx that repeating cannot fix) is fatal and fails the run.
 */
export class ModelError extends Error {
  override name = "ModelError";
  /**
   * The usage of a whole answer that was served but refused (garbled): the provider bills it,
   * so it is counted though the answer is not kept. Null when no whole answer came.
   */
  served: CallUsage | null = null;
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    /** The provider's `Retry-After`, in milliseconds, when it sent one. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds from `now`. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** Joins consecutive messages of the same role: providers require turns to alternate. */
export function mergeTurns<B>(messages: readonly { role: Role; content: readonly B[] }[]): { role: Role; content: B[] }[] {
  const merged: { role: Role; content: B[] }[] = [];
  for (const message of messages) {
    const last = merged[merged.length - 1];
    if (last && last.role === message.role) last.content = [...last.content, ...message.content];
    else merged.push({ role: message.role, content: [...message.content] });
  }
  return merged;
}

/** A count from a provider's usage report: a non-negative integer, else 0. */
export function toCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}
