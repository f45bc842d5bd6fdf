/**
 * The `outbox` and `outbox_retry` keys: status notifications owed to the tenant index, written
 * in the transaction of the status change they report and deleted once the index has them
 * (../../../notifications/outbox.ts). The outbox is one value, oldest first: it holds a
 * notification or two for a moment per run (a hand-off follows each at once), and a table would
 * keep a page of its own for the session's life, empty or not (migration 16 moved the table's
 * rows here).
 */
import type { Notification } from "../../../notifications/types";
import type { KvStretchCache } from "../engine/kv-stretch";

/** A notification owed to the tenant index: the notification without its tenant (the session's own). */
export type OutboxEntry = Omit<Notification, "tenant_id">;

/** Failed hand-offs of the outbox in a row, and when the next one may be tried (epoch ms). */
export interface OutboxRetry {
  failures: number;
  retry_at: number;
}

export const OUTBOX_KEY = "outbox";
const OUTBOX_RETRY_KEY = "outbox_retry";

export function readOutbox(kv: KvStretchCache): readonly OutboxEntry[] {
  return kv.get<OutboxEntry[]>(OUTBOX_KEY) ?? [];
}

/** The key goes with its last entry, so a session at rest stores none. */
export function writeOutbox(kv: KvStretchCache, entries: readonly OutboxEntry[]): void {
  if (entries.length === 0) kv.delete(OUTBOX_KEY);
  else kv.put(OUTBOX_KEY, entries);
}

/** `entries` without those of `ids`; `entries` itself when none of them is there. */
export function withoutIds(entries: readonly OutboxEntry[], ids: readonly string[]): readonly OutboxEntry[] {
  const gone = new Set(ids);
  const left = entries.filter((entry) => !gone.has(entry.id));
  return left.length === entries.length ? entries : left;
}

export function outboxRetry(kv: SyncKvStorage): OutboxRetry {
  return kv.get<OutboxRetry>(OUTBOX_RETRY_KEY) ?? { failures: 0, retry_at: 0 };
}

/** No failures: the key is deleted, so a session that never failed a hand-off stores none. */
export function putOutboxRetry(kv: SyncKvStorage, retry: OutboxRetry): void {
  if (retry.failures === 0) kv.delete(OUTBOX_RETRY_KEY);
  else kv.put(OUTBOX_RETRY_KEY, retry);
}
