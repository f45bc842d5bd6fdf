/**
 * Concurrency slots for runs. A slot is held by every session in an active status and, for a
 * short while, by a reservation made when a start is admitted, so two starts racing each other
 * cannot both see a free slot before either Agent has reported that it is running.
 */
import { ACTIVE_STATUSES } from "../agents/types";
import type { RunSlot } from "./types";

/** A reservation ends when the session's next report arrives, or after this time (a start that failed). */
export const RUN_RESERVATION_TTL_MS = 30_000;
/**
 * Retry hint when every slot is taken. When a running session will finish is unknown, so the hint
 * is a short constant, or sooner if a reservation runs out first.
 */
export const RUN_SLOT_RETRY_AFTER_SECONDS = 5;

const ACTIVE_PLACEHOLDERS = ACTIVE_STATUSES.map(() => "?").join(", ");

export function acquireRunSlot(sql: SqlStorage, sessionId: string, maxConcurrent: number, now: number): RunSlot {
  sql.exec(`DELETE FROM run_reservations WHERE expires_at <= ?`, now);
  // UNION removes duplicates: a session that is both active and reserved holds one slot. The
  // session asking is left out, so a repeated acquire for the same session never refuses itself.
  const { n } = sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM (
         SELECT id FROM sessions WHERE status IN (${ACTIVE_PLACEHOLDERS})
         UNION
         SELECT session_id AS id FROM run_reservations
       ) WHERE id <> ?`,
      ...ACTIVE_STATUSES,
      sessionId,
    )
    .one();
  if (n >= maxConcurrent) {
    const { first } = sql
      .exec<{ first: number | null }>(`SELECT MIN(expires_at) AS first FROM run_reservations WHERE session_id <> ?`, sessionId)
      .one();
    return { ok: false, code: "busy", retryAfterSeconds: runSlotRetryAfter(now, first) };
  }
  sql.exec(
    `INSERT INTO run_reservations (session_id, expires_at) VALUES (?, ?)
     ON CONFLICT (session_id) DO UPDATE SET expires_at = excluded.expires_at`,
    sessionId,
    now + RUN_RESERVATION_TTL_MS,
  );
  return { ok: true };
}

export function releaseRunSlot(sql: SqlStorage, sessionId: string): void {
  sql.exec(`DELETE FROM run_reservations WHERE session_id = ?`, sessionId);
}

export function runSlotRetryAfter(now: number, firstReservationExpiry: number | null): number {
  const untilExpiry = firstReservationExpiry === null ? Infinity : Math.ceil((firstReservationExpiry - now) / 1000);
  return Math.max(1, Math.min(RUN_SLOT_RETRY_AFTER_SECONDS, untilExpiry));
}
