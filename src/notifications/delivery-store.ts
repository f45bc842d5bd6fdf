/**
 * The delivery log: one row per notification and receiver (each subscribed endpoint, and the
 * session's notify URL), with its status and attempts. It is also the queue the index delivers
 * from: a `pending` row is owed, and `next_attempt_at` says when it is tried next. Times are epoch
 * ms. Retention: notifications/retention.ts.
 */
import type { Page } from "../session-config/types";
import { newDeliveryId } from "./ids";
import {
  BACKLOG_FULL_ERROR,
  backlogHasRoom,
  PRUNE_BATCH,
  REDELIVER_WINDOW_MS,
  redeliverWait,
  retentionCutoff,
  settledExcess,
} from "./retention";
import type { NotificationType } from "./types";
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import { toIso } from "../shared/validate";

export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The target of a session's own notify URL: one per URL, so each URL has its own bounds. */
export function notifyUrlTarget(url: string): string {
  return `notify:${url}`;
}

/** A delivery as the API shows it. */
export interface NotificationDelivery {
  id: string;
  /** Null for a delivery to a session's notify URL. */
  endpoint_id: string | null;
  event_id: string;
  event_type: NotificationType;
  session_id: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due; null unless pending. */
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  /** The HTTP status of the last answer; null when there was none (a network error, a timeout). */
  response_status: number | null;
  /** Why the last attempt failed; null after a success or before any attempt. */
  error: string | null;
  created_at: string;
  /** When it succeeded or failed for good. */
  settled_at: string | null;
  /** The delivery this one repeats, for a redelivery. */
  redelivery_of: string | null;
}

/** A row as stored, with what the dispatcher needs to send it. */
export interface DeliveryRow extends Record<string, string | number | null> {
  id: string;
  target: string;
  endpoint_id: string | null;
  event_id: string;
  event_type: string;
  session_id: string;
  url: string;
  body: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  response_status: number | null;
  error: string | null;
  created_at: number;
  settled_at: number | null;
  redelivery_of: string | null;
}

export interface NewDelivery {
  target: string;
  endpoint_id: string | null;
  event_id: string;
  event_type: NotificationType;
  session_id: string;
  url: string;
  body: string;
}

/**
 * Adds an original delivery unless this event already has one for this target (a hand-off
 * repeated after a lost answer). Returns whether a row was added. A target whose backlog is full
 * gets the row as `failed` at once, so it is listed and can be redelivered.
 */
export function addDelivery(sql: SqlStorage, delivery: NewDelivery, now: number): boolean {
  const seen = sql
    .exec(
      `SELECT 1 FROM webhook_deliveries WHERE event_id = ? AND target = ? AND redelivery_of IS NULL`,
      delivery.event_id,
      delivery.target,
    )
    .toArray();
  if (seen.length > 0) return false;
  insert(sql, delivery, null, now);
  return true;
}

function insert(sql: SqlStorage, delivery: NewDelivery, redeliveryOf: string | null, now: number): string {
  const id = newDeliveryId();
  const room = backlogHasRoom(pendingCount(sql, delivery.target));
  sql.exec(
    `INSERT INTO webhook_deliveries
       (id, target, endpoint_id, event_id, event_type, session_id, url, body, status, attempts, next_attempt_at, error, created_at, settled_at, redelivery_of)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
    id,
    delivery.target,
    delivery.endpoint_id,
    delivery.event_id,
    delivery.event_type,
    delivery.session_id,
    delivery.url,
    delivery.body,
    room ? "pending" : "failed",
    room ? now : null,
    room ? null : BACKLOG_FULL_ERROR,
    now,
    room ? null : now,
    redeliveryOf,
  );
  return id;
}

function pendingCount(sql: SqlStorage, target: string): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE target = ? AND status = 'pending'`, target).one().n;
}

/**
 * Due deliveries, oldest due first: at most `limit`, and at most `perTarget` of any one target,
 * so a receiver with a long backlog cannot take a whole pass from the others.
 */
export function dueDeliveries(sql: SqlStorage, now: number, limit: number, perTarget: number): DeliveryRow[] {
  return sql
    .exec<DeliveryRow>(
      `SELECT * FROM (
         SELECT *, ROW_NUMBER() OVER (PARTITION BY target ORDER BY next_attempt_at, id) AS place
         FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
       ) WHERE place <= ? ORDER BY next_attempt_at, id LIMIT ?`,
      now,
      perTarget,
      limit,
    )
    .toArray();
}

/** When the earliest pending delivery is due (epoch ms), or null when none is owed. */
export function nextDueAt(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>(`SELECT MIN(next_attempt_at) AS at FROM webhook_deliveries WHERE status = 'pending'`).one().at;
}

/**
 * Counts an attempt before it is made, with the time it is tried again should no answer ever be
 * recorded (the process dies during it): a crash then delays the delivery, never loses it, and
 * never lets it be tried more often than its schedule allows. False when the row is gone or no
 * longer owed (its endpoint was deleted meanwhile).
 */
export function beginAttempt(sql: SqlStorage, id: string, attempt: number, retryAt: number, now: number): boolean {
  return (
    sql.exec(
      `UPDATE webhook_deliveries SET attempts = ?, next_attempt_at = ?, last_attempt_at = ? WHERE id = ? AND status = 'pending'`,
      attempt,
      retryAt,
      now,
      id,
    ).rowsWritten > 0
  );
}

export function recordSuccess(sql: SqlStorage, id: string, status: number, now: number): void {
  sql.exec(
    `UPDATE webhook_deliveries SET status = 'succeeded', response_status = ?, error = NULL, next_attempt_at = NULL, settled_at = ? WHERE id = ? AND status = 'pending'`,
    status,
    now,
    id,
  );
}

/** A failed attempt: tried again at the time `beginAttempt` set, or failed for good (`final`). */
export function recordFailure(
  sql: SqlStorage,
  id: string,
  failure: { status: number | null; error: string; final: boolean },
  now: number,
): void {
  if (failure.final) {
    sql.exec(
      `UPDATE webhook_deliveries SET status = 'failed', response_status = ?, error = ?, next_attempt_at = NULL, settled_at = ? WHERE id = ? AND status = 'pending'`,
      failure.status,
      failure.error,
      now,
      id,
    );
  } else {
    sql.exec(
      `UPDATE webhook_deliveries SET response_status = ?, error = ? WHERE id = ? AND status = 'pending'`,
      failure.status,
      failure.error,
      id,
    );
  }
}

export function getDelivery(sql: SqlStorage, target: string, id: string): DeliveryRow | null {
  return sql.exec<DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE id = ? AND target = ?`, id, target).toArray()[0] ?? null;
}

/** A target's deliveries, newest first by (created_at, id). Throws a RangeError for a cursor this module did not make. */
export function listDeliveries(
  sql: SqlStorage,
  target: string,
  status: DeliveryStatus | null,
  limit: number,
  cursor: string | null,
): Page<NotificationDelivery> {
  const after = cursor === null ? null : decodeTimeIdCursor("deliveries", cursor);
  if (cursor !== null && !after) throw new RangeError("invalid cursor");
  const where = ["target = ?"];
  const args: (string | number)[] = [target];
  if (status) {
    where.push("status = ?");
    args.push(status);
  }
  if (after) {
    where.push("(created_at, id) < (?, ?)");
    args.push(after.ms, after.id);
  }
  const rows = sql
    .exec<DeliveryRow>(
      `SELECT * FROM webhook_deliveries WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...args,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toDelivery),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("deliveries", last.created_at, last.id) : null,
  };
}

export type RedeliverResult =
  | { ok: true; delivery: NotificationDelivery }
  | { ok: false; reason: "not_found" | "pending" }
  | { ok: false; reason: "rate_limited"; retry_after_ms: number };

/**
 * Sends a delivery's notification again, as a new delivery of the same event (same body, same
 * event id, so a receiver that has it already can tell) with a schedule of its own. Refused while
 * the delivery itself is still owed, and past the redeliver rate of the notification at this
 * target (counted over every redelivery of the event, so redelivering a copy counts the same).
 */
export function redeliver(sql: SqlStorage, target: string, id: string, now: number): RedeliverResult {
  const row = getDelivery(sql, target, id);
  if (!row) return { ok: false, reason: "not_found" };
  if (row.status === "pending") return { ok: false, reason: "pending" };
  const earlier = sql
    .exec<{ created_at: number }>(
      `SELECT created_at FROM webhook_deliveries WHERE event_id = ? AND target = ? AND redelivery_of IS NOT NULL AND created_at > ? ORDER BY created_at`,
      row.event_id,
      target,
      now - REDELIVER_WINDOW_MS,
    )
    .toArray()
    .map((r) => r.created_at);
  const wait = redeliverWait(earlier, now);
  if (wait > 0) return { ok: false, reason: "rate_limited", retry_after_ms: wait };
  const copy: NewDelivery = {
    target: row.target,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type as NotificationType,
    session_id: row.session_id,
    url: row.url,
    body: row.body,
  };
  const newId = insert(sql, copy, row.id, now);
  return { ok: true, delivery: toDelivery(getDelivery(sql, target, newId)!) };
}

/**
 * One bounded pass of retention: settled deliveries past their time, then, for each of
 * `targets`, the oldest settled ones beyond its cap. Pending ones are never touched.
 */
export function pruneDeliveries(sql: SqlStorage, now: number, targets: Iterable<string> = []): number {
  let removed = sql.exec(
    `DELETE FROM webhook_deliveries WHERE id IN (
       SELECT id FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending' LIMIT ?)`,
    retentionCutoff(now),
    PRUNE_BATCH,
  ).rowsWritten;
  for (const target of new Set(targets)) {
    const { n } = sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE target = ? AND status <> 'pending'`, target)
      .one();
    const excess = settledExcess(n);
    if (excess === 0) continue;
    removed += sql.exec(
      `DELETE FROM webhook_deliveries WHERE id IN (
         SELECT id FROM webhook_deliveries WHERE target = ? AND status <> 'pending' ORDER BY created_at, id LIMIT ?)`,
      target,
      excess,
    ).rowsWritten;
  }
  return removed;
}

export function toDelivery(row: DeliveryRow): NotificationDelivery {
  const ms = (value: number | null) => (value === null ? null : toIso(value));
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type as NotificationType,
    session_id: row.session_id,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    next_attempt_at: row.status === "pending" ? ms(row.next_attempt_at) : null,
    last_attempt_at: ms(row.last_attempt_at),
    response_status: row.response_status,
    error: row.error,
    created_at: toIso(row.created_at),
    settled_at: ms(row.settled_at),
    redelivery_of: row.redelivery_of,
  };
}

/** A delivery status as received over RPC, checked; throws on anything else. */
export function requireDeliveryStatus(value: unknown): DeliveryStatus {
  if (typeof value !== "string" || !(DELIVERY_STATUSES as readonly string[]).includes(value))
    throw new TypeError("status must be a delivery status");
  return value as DeliveryStatus;
}
