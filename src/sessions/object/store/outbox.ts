/**
 * The `outbox` table and its `outbox_retry` key: status notifications owed to the tenant index,
 * written in the transaction of the status change they report and deleted once the index has
 * them (../../../notifications/outbox.ts).
 */
import type { Notification } from "../../../notifications/types";

/** A notification owed to the tenant index: the notification without its tenant (the session's own). */
export type OutboxEntry = Omit<Notification, "tenant_id">;

/** Failed hand-offs of the outbox in a row, and when the next one may be tried (epoch ms). */
export interface OutboxRetry {
  failures: number;
  retry_at: number;
}

const OUTBOX_RETRY_KEY = "outbox_retry";

export function appendOutbox(sql: SqlStorage, entry: OutboxEntry): void {
  sql.exec(
    "INSERT INTO outbox (id, type, created_at, session) VALUES (?, ?, ?, ?)",
    entry.id,
    entry.type,
    entry.created_at,
    JSON.stringify(entry.session),
  );
}

export function outbox(sql: SqlStorage, limit: number): OutboxEntry[] {
  return sql
    .exec<Record<string, SqlStorageValue>>("SELECT id, type, created_at, session FROM outbox ORDER BY seq LIMIT ?", limit)
    .toArray()
    .map((row) => ({
      id: String(row.id),
      type: String(row.type) as OutboxEntry["type"],
      created_at: String(row.created_at),
      session: JSON.parse(String(row.session)) as OutboxEntry["session"],
    }));
}

export function outboxSize(sql: SqlStorage): number {
  return Number(sql.exec("SELECT COUNT(*) AS n FROM outbox").one().n);
}

/** One statement for the batch: `id` has no index (migration 14), and the outbox holds a few rows at most. */
export function removeFromOutbox(sql: SqlStorage, ids: readonly string[]): void {
  if (ids.length === 0) return;
  sql.exec(`DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(ids));
}

export function outboxRetry(kv: SyncKvStorage): OutboxRetry {
  return kv.get<OutboxRetry>(OUTBOX_RETRY_KEY) ?? { failures: 0, retry_at: 0 };
}

/** No failures: the key is deleted, so a session that never failed a hand-off stores none. */
export function putOutboxRetry(kv: SyncKvStorage, retry: OutboxRetry): void {
  if (retry.failures === 0) kv.delete(OUTBOX_RETRY_KEY);
  else kv.put(OUTBOX_RETRY_KEY, retry);
}
