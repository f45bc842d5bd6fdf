/**
 * What the trace exporter needs of a session's storage: the finished spans owed to the tenant's
 * collector and the retry state. Declared here and passed in; the session object's store
 * (src/sessions/object/store/store.ts) is the one implementation, so traces/ never imports it.
 */
import type { SpanRecord } from "../session-config/trace-types";

export interface OutboxSpan {
  seq: number;
  span: SpanRecord;
  /** Epoch ms: when the span was written. */
  created_at: number;
}

/** Failed exports in a row, and when the next may be tried (epoch ms). */
export interface TraceExportRetry {
  failures: number;
  retry_at: number;
}

export interface SpanOutbox {
  /** The session the spans belong to; undefined before it is created. */
  session(): { readonly id: string; readonly tenant_id: string } | undefined;
  /** The oldest `limit` spans owed, by `seq`. */
  spans(limit: number): OutboxSpan[];
  spanCount(): number;
  removeSpansThrough(seq: number): void;
  traceExportRetry(): TraceExportRetry;
  putTraceExportRetry(retry: TraceExportRetry): void;
  /** Runs `fn` atomically. */
  transaction<T>(fn: () => T): T;
}
