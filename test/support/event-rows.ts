/**
 * The session's stored events as rows, one per event, read from (or written into) the batches
 * the event log stores (src/sessions/object/store/events.ts): for tests that look at or fill the
 * log directly. `data` is the stored form as JSON text.
 */
import { appendEvents, eventsAfter } from "../../src/sessions/object/store/events";

export interface EventRow {
  id: number;
  type: string;
  data: string;
  created_at: string;
}

export function storedEvents(sql: SqlStorage): EventRow[] {
  return eventsAfter(sql, 0, Number.MAX_SAFE_INTEGER).map((event) => ({ ...event, data: JSON.stringify(event.data) }));
}

/** Appends events one per row, as separate transactions would, after the newest id stored. */
export function insertEvents(sql: SqlStorage, events: readonly (readonly [type: string, data: unknown, createdAt: string])[]): void {
  let next = Number(sql.exec("SELECT coalesce(max(last_id), 0) AS id FROM event_batches").one().id) + 1;
  for (const [type, data, createdAt] of events) appendEvents(sql, next++, [[type, data, createdAt]]);
}
