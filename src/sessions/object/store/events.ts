/**
 * The `event_batches` table and its `events_pruned_through` key: the event log, replayed by id
 * (ids are never reused, so a cursor stays meaningful after pruning). The events of one
 * transaction are one row, ids `first_id` … `last_id` in order, since each row written is paid
 * for; its rules live in events/event-log.ts.
 */
import type { KvStretchCache } from "../engine/kv-stretch";

export interface StoredEventRow {
  id: number;
  type: string;
  data: unknown;
  created_at: string;
}

/** An event as its batch holds it: type, stored data, creation time. */
export type BatchedEvent = [type: string, data: unknown, createdAt: string];

/**
 * An event as its row stores it: the creation time only when it differs from the row's
 * `created_at` (the newest event's), which in one transaction it seldom does, and then as the
 * milliseconds from that time. Rows written before version 14's code keep
 * an ISO time on every event, and later ones an ISO time where one differed; all read the same.
 */
type StoredBatchedEvent = [type: string, data: unknown, createdAt?: string | number];

/** `createdAt` as its row stores it beside the row's own time `newest`. */
function storedTime(createdAt: string, newest: string): string | number | undefined {
  if (createdAt === newest) return undefined;
  const offset = Date.parse(createdAt) - Date.parse(newest);
  // Only a time that reads back exactly (an ISO time with milliseconds) is kept as an offset.
  return Number.isFinite(offset) && new Date(Date.parse(newest) + offset).toISOString() === createdAt ? offset : createdAt;
}

function readTime(stored: string | number | undefined, rowCreatedAt: string): string {
  if (stored === undefined) return rowCreatedAt;
  return typeof stored === "number" ? new Date(Date.parse(rowCreatedAt) + stored).toISOString() : stored;
}

const EVENTS_PRUNED_THROUGH_KEY = "events_pruned_through";

/** Stores the events with ids `firstId` … `firstId + events.length - 1` as one row. */
export function appendEvents(sql: SqlStorage, firstId: number, events: readonly BatchedEvent[]): void {
  if (events.length === 0) return;
  const newest = events[events.length - 1]![2];
  const stored = events.map(([type, data, createdAt]): StoredBatchedEvent => {
    const time = storedTime(createdAt, newest);
    return time === undefined ? [type, data] : [type, data, time];
  });
  sql.exec(
    "INSERT INTO event_batches (last_id, first_id, created_at, events) VALUES (?, ?, ?, ?)",
    firstId + events.length - 1,
    firstId,
    newest,
    JSON.stringify(stored),
  );
}

/** Up to `limit` stored events after `after`, oldest first. */
export function eventsAfter(sql: SqlStorage, after: number, limit: number): StoredEventRow[] {
  const out: StoredEventRow[] = [];
  // Batches are read as the page fills: a page of `limit` events never needs more than `limit` rows.
  for (const row of sql.exec<{ first_id: number; created_at: string; events: string }>(
    "SELECT first_id, created_at, events FROM event_batches WHERE last_id > ? ORDER BY last_id LIMIT ?",
    after,
    limit,
  )) {
    const events = JSON.parse(String(row.events)) as StoredBatchedEvent[];
    const first = Number(row.first_id);
    for (let i = 0; i < events.length && out.length < limit; i++) {
      const id = first + i;
      if (id <= after) continue;
      const [type, data, createdAt] = events[i]!;
      out.push({ id, type, data, created_at: readTime(createdAt, String(row.created_at)) });
    }
    if (out.length >= limit) break;
  }
  return out;
}

export function newestEventId(sql: SqlStorage): number {
  return Number(sql.exec("SELECT max(last_id) AS id FROM event_batches").one().id ?? 0);
}

/** The newest event id of a batch whose events were all created before `createdAt` (ISO), or 0. */
export function newestEventIdBefore(sql: SqlStorage, createdAt: string): number {
  return Number(sql.exec("SELECT max(last_id) AS id FROM event_batches WHERE created_at < ?", createdAt).one().id ?? 0);
}

/** Deletes the batches whose events are all at or before `id`, and records that events through `id` are gone. */
export function pruneEventsThrough(sql: SqlStorage, kv: KvStretchCache, id: number): void {
  sql.exec("DELETE FROM event_batches WHERE last_id <= ?", id);
  kv.put(EVENTS_PRUNED_THROUGH_KEY, Math.max(id, eventsPrunedThrough(kv)));
}

export function eventsPrunedThrough(kv: KvStretchCache): number {
  return kv.get<number>(EVENTS_PRUNED_THROUGH_KEY) ?? 0;
}
