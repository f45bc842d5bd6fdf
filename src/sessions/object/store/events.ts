/**
 * The `events` table and its `events_pruned_through` key: the event log, replayed by id (ids are
 * never reused, so a cursor stays meaningful after pruning). Its rules live in events/event-log.ts.
 */
import type { KvStretchCache } from "../engine/kv-stretch";

export interface StoredEventRow {
  id: number;
  type: string;
  data: unknown;
  created_at: string;
}

const EVENTS_PRUNED_THROUGH_KEY = "events_pruned_through";

export function appendEvent(sql: SqlStorage, type: string, data: unknown, now: string): number {
  const row = sql.exec("INSERT INTO events (type, data, created_at) VALUES (?, ?, ?) RETURNING id", type, JSON.stringify(data), now).one();
  return Number(row.id);
}

export function eventsAfter(sql: SqlStorage, after: number, limit: number): StoredEventRow[] {
  return sql
    .exec("SELECT id, type, data, created_at FROM events WHERE id > ? ORDER BY id LIMIT ?", after, limit)
    .toArray()
    .map((row) => ({ id: Number(row.id), type: String(row.type), data: JSON.parse(String(row.data)), created_at: String(row.created_at) }));
}

export function newestEventId(sql: SqlStorage): number {
  return Number(sql.exec("SELECT max(id) AS id FROM events").one().id ?? 0);
}

export function newestEventIdBefore(sql: SqlStorage, createdAt: string): number {
  return Number(sql.exec("SELECT max(id) AS id FROM events WHERE created_at < ?", createdAt).one().id ?? 0);
}

export function pruneEventsThrough(sql: SqlStorage, kv: KvStretchCache, id: number): void {
  sql.exec("DELETE FROM events WHERE id <= ?", id);
  kv.put(EVENTS_PRUNED_THROUGH_KEY, Math.max(id, eventsPrunedThrough(kv)));
}

export function eventsPrunedThrough(kv: KvStretchCache): number {
  return kv.get<number>(EVENTS_PRUNED_THROUGH_KEY) ?? 0;
}
