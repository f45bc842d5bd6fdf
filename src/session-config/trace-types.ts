/** The shapes of tracing: the tenant's setting, a run's trace as its state holds it, and a span as the outbox keeps it. */

/** `traces` in the tenant's settings: where the runs' traces go. Header values are secrets. */
export interface TracesSettings {
  /** An https URL; spans are posted to `{endpoint}/v1/traces`. */
  endpoint: string;
  headers?: Record<string, string>;
  /** Message content on the spans; absent or false: none. */
  capture_content?: boolean;
}

/** A run's trace, set when the run starts on a tenant with `traces` set (absent otherwise). */
export interface RunTrace {
  trace_id: string;
  /** The run's root span (`invoke_agent`). */
  span_id: string;
  /** The caller's span from `traceparent`, or null when the run starts a trace. */
  parent_span_id: string | null;
  sampled: boolean;
  capture_content: boolean;
  /** Epoch ms. */
  started_at: number;
  /** The name of the agent the session runs (kept with the session), for the root span's name; null: none, or not known. */
  agent_name: string | null;
  /** The session's token counts when the run started, so the root span shows the run's own. */
  input_tokens_at_start: number;
  output_tokens_at_start: number;
}

/** A request's tracing, from the gateway to the run it starts. */
export interface TraceRequest {
  /** The caller's `traceparent`, already parsed; null: a new trace. */
  parent: { trace_id: string; span_id: string; sampled: boolean } | null;
  capture_content: boolean;
}

export type SpanAttribute = string | number | boolean | string[];

/** A finished span, as the session's trace outbox keeps it until a collector has it. Times are epoch ms. */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: "internal" | "client";
  start_ms: number;
  end_ms: number;
  attributes: Record<string, SpanAttribute>;
  /** The status message of a span that failed; null: it did not. */
  error: string | null;
}
