/**
 * Concurrency slots for runs. A slot is held by every session that is `running` and, for a
 * short while, by a reservation: made when a start is admitted (so two racing starts cannot both
 * see a free slot before either session object reports), or when a queued session is granted a slot.
 * Sessions that wait for a person, a client or a resume hold none; when they move on without a
 * free slot they are `queued`, and free slots go to queued sessions in arrival order before any
 * new run.
 */
import { slotsInUse } from "./sessions-store";
import type { SessionStatus } from "../session-config/types";
import type { RunSlot } from "./types";

/** A reservation ends when the session's next report arrives, or after this time (a start that failed). */
export const RUN_RESERVATION_TTL_MS = 30_000;
/**
 * Retry hint when every slot is taken. When a running session will finish is unknown, so the hint
 * is a short constant, or sooner if a reservation runs out first.
 */
export const RUN_SLOT_RETRY_AFTER_SECONDS = 5;

/** Queued sessions not yet granted a slot that came before `sessionId` (all of them for a new run). */
function waitingAhead(sql: SqlStorage, sessionId: string): number {
  const own = sql.exec<{ queued_at: number }>(`SELECT queued_at FROM run_queue WHERE session_id = ?`, sessionId).toArray()[0];
  return sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM run_queue WHERE granted_at IS NULL AND session_id <> ? AND queued_at < ?`,
      sessionId,
      own?.queued_at ?? Number.MAX_SAFE_INTEGER,
    )
    .one().n;
}

export function acquireRunSlot(sql: SqlStorage, sessionId: string, maxConcurrent: number, now: number): RunSlot {
  sql.exec(`DELETE FROM run_reservations WHERE expires_at <= ?`, now);
  if (slotsInUse(sql, sessionId) + waitingAhead(sql, sessionId) >= maxConcurrent) {
    const { first } = sql
      .exec<{ first: number | null }>(`SELECT MIN(expires_at) AS first FROM run_reservations WHERE session_id <> ?`, sessionId)
      .one();
    return { ok: false, code: "busy", retryAfterSeconds: runSlotRetryAfter(now, first) };
  }
  reserve(sql, sessionId, now);
  return { ok: true };
}

export function releaseRunSlot(sql: SqlStorage, sessionId: string): void {
  sql.exec(`DELETE FROM run_reservations WHERE session_id = ?`, sessionId);
}

export function runSlotRetryAfter(now: number, firstReservationExpiry: number | null): number {
  const untilExpiry = firstReservationExpiry === null ? Infinity : Math.ceil((firstReservationExpiry - now) / 1000);
  return Math.max(1, Math.min(RUN_SLOT_RETRY_AFTER_SECONDS, untilExpiry));
}

/** The run-slot bookkeeping after an applied report: a queued session's report does not end a grant the index may have just made it. */
export function followReport(sql: SqlStorage, sessionId: string, status: SessionStatus, at: number): void {
  if (status !== "queued") releaseRunSlot(sql, sessionId);
  trackQueue(sql, sessionId, status === "queued", at);
}

/** The run-slot bookkeeping after a session's row was removed: its slot and its place in the queue go. */
export function forgetSession(sql: SqlStorage, sessionId: string, now: number): void {
  releaseRunSlot(sql, sessionId);
  trackQueue(sql, sessionId, false, now);
}

/** Keeps the queue in step with a session's reported status: `queued` joins it (once), anything else leaves it. */
export function trackQueue(sql: SqlStorage, sessionId: string, queued: boolean, now: number): void {
  if (queued) sql.exec(`INSERT INTO run_queue (session_id, queued_at) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING`, sessionId, now);
  else sql.exec(`DELETE FROM run_queue WHERE session_id = ?`, sessionId);
}

/**
 * Gives free slots to queued sessions, oldest first: each gets a reservation and is returned to
 * be told. A grant the session has not taken up within the reservation's life is made again.
 */
export function grantQueuedSlots(sql: SqlStorage, maxConcurrent: number, now: number): string[] {
  sql.exec(`DELETE FROM run_reservations WHERE expires_at <= ?`, now);
  sql.exec(
    `UPDATE run_queue SET granted_at = NULL WHERE granted_at IS NOT NULL AND session_id NOT IN (SELECT session_id FROM run_reservations)`,
  );
  const free = maxConcurrent - slotsInUse(sql, "");
  if (free <= 0) return [];
  const ids = sql
    .exec<{ session_id: string }>(`SELECT session_id FROM run_queue WHERE granted_at IS NULL ORDER BY queued_at, session_id LIMIT ?`, free)
    .toArray()
    .map((row) => row.session_id);
  for (const id of ids) {
    reserve(sql, id, now);
    sql.exec(`UPDATE run_queue SET granted_at = ? WHERE session_id = ?`, now, id);
  }
  return ids;
}

/** Granted sessions that have not reported running yet: they are told (again) of their slot. */
export function grantedSessions(sql: SqlStorage): string[] {
  return sql
    .exec<{ session_id: string }>(`SELECT session_id FROM run_queue WHERE granted_at IS NOT NULL ORDER BY queued_at`)
    .toArray()
    .map((row) => row.session_id);
}

/** How soon a pump must look again at the queue. */
export const GRANT_RETRY_MS = 5_000;

/**
 * When the queue pump must run again: soon while a grant is untaken (to tell the session object again),
 * else when the first reservation lapses (a slot may free without any report); null when no one
 * waits.
 */
export function nextPumpAt(sql: SqlStorage, now: number): number | null {
  if (grantedSessions(sql).length > 0) return now + GRANT_RETRY_MS;
  if (queueLength(sql) === 0) return null;
  const { first } = sql.exec<{ first: number | null }>(`SELECT MIN(expires_at) AS first FROM run_reservations`).one();
  return first;
}

export function queueLength(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM run_queue`).one().n;
}

function reserve(sql: SqlStorage, sessionId: string, now: number): void {
  sql.exec(
    `INSERT INTO run_reservations (session_id, expires_at) VALUES (?, ?)
     ON CONFLICT (session_id) DO UPDATE SET expires_at = excluded.expires_at`,
    sessionId,
    now + RUN_RESERVATION_TTL_MS,
  );
}
