/**
 * The `trace_spans` table and its `trace_export_retry` key: finished spans owed to the tenant's
 * collector, written in the transaction of the unit (or status change) they describe and deleted
 * once a collector took them (../../../traces/exporter.ts).
 */
import type { SpanRecord } from "../../../session-config/trace-types";

export interface StoredSpan {
  seq: number;
  span: SpanRecord;
  /** Epoch ms: when the span was written, for the 24-hour retry bound. */
  created_at: number;
}

/** Failed exports in a row, and when the next may be tried (epoch ms). */
export interface TraceExportRetry {
  failures: number;
  retry_at: number;
}

const RETRY_KEY = "trace_export_retry";

export function appendSpan(sql: SqlStorage, span: SpanRecord, now: number): void {
  sql.exec("INSERT INTO trace_spans (span, created_at) VALUES (?, ?)", JSON.stringify(span), now);
}

export function spans(sql: SqlStorage, limit: number): StoredSpan[] {
  return sql
    .exec<Record<string, SqlStorageValue>>("SELECT seq, span, created_at FROM trace_spans ORDER BY seq LIMIT ?", limit)
    .toArray()
    .map((row) => ({ seq: Number(row.seq), span: JSON.parse(String(row.span)) as SpanRecord, created_at: Number(row.created_at) }));
}

export function spanCount(sql: SqlStorage): number {
  return Number(sql.exec("SELECT COUNT(*) AS n FROM trace_spans").one().n);
}

/** Deletes the spans up to `seq`: the oldest first, as they were taken. */
export function removeSpansThrough(sql: SqlStorage, seq: number): void {
  sql.exec("DELETE FROM trace_spans WHERE seq <= ?", seq);
}

export function exportRetry(kv: SyncKvStorage): TraceExportRetry {
  return kv.get<TraceExportRetry>(RETRY_KEY) ?? { failures: 0, retry_at: 0 };
}

/** No failures: the key is deleted, so a session whose exports never failed stores none. */
export function putExportRetry(kv: SyncKvStorage, retry: TraceExportRetry): void {
  if (retry.failures === 0) kv.delete(RETRY_KEY);
  else kv.put(RETRY_KEY, retry);
}
