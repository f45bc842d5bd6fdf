/**
 * The session's stored events as rows, one per event, read from (or written into) the batches
 * the event log stores (src/sessions/object/store/events.ts): for tests that look at or fill the
 * log directly. `data` is the stored form as JSON text.
 */
import { appendEvents } from "../../src/sessions/object/store/events";

export interface EventRow {
  id: number;
  type: string;
  data: string;
  created_at: string;
}

export function storedEvents(sql: SqlStorage): EventRow[] {
  return sql
    .exec("SELECT first_id, created_at, events FROM event_batches ORDER BY last_id")
    .toArray()
    .flatMap((row) =>
      // An event's own creation time is stored only when it differs from its batch's.
      (JSON.parse(String(row.events)) as [string, unknown, string?][]).map(([type, data, createdAt], n) => ({
        id: Number(row.first_id) + n,
        type,
        data: JSON.stringify(data),
        created_at: createdAt ?? String(row.created_at),
      })),
    );
}

/** Appends events one per row, as separate transactions would, after the newest id stored. */
export function insertEvents(sql: SqlStorage, events: readonly (readonly [type: string, data: unknown, createdAt: string])[]): void {
  let next = Number(sql.exec("SELECT coalesce(max(last_id), 0) AS id FROM event_batches").one().id) + 1;
  for (const [type, data, createdAt] of events) appendEvents(sql, next++, [[type, data, createdAt]]);
}
