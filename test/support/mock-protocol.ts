/**
 * The wire contract between the mock server (Node) and the tests that script it (workerd).
 * Types only, so both runtimes can import it without pulling in either side's code.
 */

/** A content block as the Anthropic Messages API returns it. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: string; [field: string]: unknown };

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  /** Prompt-cache counts as Anthropic reports them; the Chat Completions dialect folds them into its own. */
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** Fields every step may carry, whatever its kind. */
interface StepTiming {
  /** Wait this long before answering; abandoned quietly if the client goes away first. */
  delay_ms?: number;
  /** Queue the same step this many times. */
  repeat?: number;
  /**
   * Only requests whose system prompt includes this text take the step, before any step
   * without a `match`; requests that match no step take the first step without one.
   */
  match?: { system_includes: string };
}

/** Answer with exactly this response. Object bodies are sent as JSON. */
export interface StatusStep extends StepTiming {
  status: number;
  body?: string | Record<string, unknown> | unknown[];
  headers?: Record<string, string>;
}

/** Never answer; the socket stays open until the client leaves or the server closes. */
export interface HangStep extends StepTiming {
  hang: true;
}

/** Destroy the connection without answering. */
export interface ResetStep extends StepTiming {
  reset: true;
}

/** Only wait (`delay_ms`), then give the default answer. */
export type DelayStep = StepTiming;

/**
 * A 200 Messages API response; `stop_reason` and `usage` get defaults. A request with
 * `"stream": true` gets it as Anthropic's Server-Sent Events, shaped by `stream`; any other
 * request gets one JSON body.
 */
export interface ReplyStep extends StepTiming {
  reply: {
    content: ContentBlock[];
    stop_reason?: string;
    usage?: Partial<Usage>;
  };
  stream?: StreamShape;
}

/** How a streamed reply is sent. Events are counted from the first (`message_start`) as 1. */
export interface StreamShape {
  /** Characters per `text_delta` (default 4). */
  chunk_chars?: number;
  /** Wait this long before each event after the first. */
  event_delay_ms?: number;
  /** Send this many events, then reset the connection: a stream broken in the middle. */
  break_after?: number;
  /** Send this many events, then send nothing more and keep the connection open. */
  hang_after?: number;
}

/**
 * A 200 whose body is exactly `body` (a recorded stream, say), written in pieces cut at the
 * given byte offsets, each its own write a moment after the one before, so a reader meets the
 * cuts where they fall: inside an event, a JSON string, a UTF-8 character.
 */
export interface RawStep extends StepTiming {
  raw: {
    body: string;
    /** Default `text/event-stream; charset=utf-8`. */
    content_type?: string;
    /** Byte offsets into the UTF-8 body, increasing. */
    split_at?: number[];
    /** Wait between pieces (default 2). */
    piece_delay_ms?: number;
  };
}

/** A 200 with `content-type: application/json` whose body does not parse. */
export interface InvalidJsonStep extends StepTiming {
  invalid_json: true;
}

/** Hold the webhook call open until the test releases the key, then answer with `then`. */
export interface HoldStep extends StepTiming {
  hold: true;
  then?: HookAnswerStep;
}

export type ModelStep = ReplyStep | RawStep | StatusStep | HangStep | ResetStep | InvalidJsonStep | DelayStep;
/** What a held webhook call may be answered with once released. */
export type HookAnswerStep = StatusStep | HangStep | ResetStep | DelayStep;
export type HookStep = HookAnswerStep | HoldStep;

/** One request as the mock server saw it. Timestamps are epoch milliseconds. */
export interface RecordedRequest {
  method: string;
  /** Path and query string, as received. */
  path: string;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body_text: string;
  /** `body_text` parsed as JSON, or null when it is not JSON. */
  body: unknown;
  received_at: number;
  /** When the last byte of the answer was handed to the socket; absent if never answered. */
  answered_at?: number;
  /** When the client went away before an answer was finished. */
  disconnected_at?: number;
}

/** Bodies of the control API's answers. */
export interface ScriptResult {
  /** Steps now waiting in that queue, after `repeat` expansion. */
  queued: number;
}
export interface RequestsResult {
  requests: RecordedRequest[];
}
export interface ReleaseResult {
  released: number;
}
