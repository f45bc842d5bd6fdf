/**
 * The Scheduler's tables (storage.md): schedules with their next slot, and one row per firing.
 * Plain functions over the object's SQL, each a statement or two; the object decides when.
 */
import type { Page } from "../session-config/types";
import { parseScopes } from "../auth/principal";
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import { maskToolSpecs } from "../session-config/masking";
import { toIso } from "../shared/validate";
import type { DisabledReason, Firing, FiringOutcome, NewSchedule, Schedule, ScheduleAction, ScheduleCreator } from "./types";

/** Firings kept per schedule, newest first; older ones are deleted as new ones are recorded. */
export const MAX_FIRINGS_KEPT = 500;

export interface ScheduleRow extends Record<string, string | number | null> {
  id: string;
  created_by: string;
  scopes: string;
  via: string;
  key_id: string | null;
  /** Present from migration 2 on (see migrations.ts). */
  expires_at: number | null;
  cron: string;
  timezone: string;
  paused: number;
  action: string;
  next_at: number | null;
  disabled_reason: string | null;
  disabled_at: number | null;
  last_fired_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface FiringRow extends Record<string, string | number | null> {
  schedule_id: string;
  scheduled_at: number;
  fired_at: number;
  session_id: string | null;
  outcome: string;
  error_code: string | null;
  error: string | null;
  attempts: number;
  retry_at: number | null;
  finished_at: number | null;
}

// ---- schedules -----------------------------------------------------------------------------

export function countSchedules(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM schedules`).one().n;
}

export function insertSchedule(sql: SqlStorage, schedule: NewSchedule, nextAt: number | null): void {
  const { creator } = schedule;
  sql.exec(
    `INSERT INTO schedules (id, created_by, scopes, via, key_id, expires_at, cron, timezone, paused, action, next_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    schedule.id,
    creator.subject,
    JSON.stringify(creator.scopes),
    creator.via,
    creator.key_id,
    creator.expires_at,
    schedule.cron,
    schedule.timezone,
    schedule.paused ? 1 : 0,
    JSON.stringify(schedule.action),
    nextAt,
    schedule.now,
    schedule.now,
  );
}

export function getSchedule(sql: SqlStorage, id: string): ScheduleRow | null {
  return sql.exec<ScheduleRow>(`SELECT * FROM schedules WHERE id = ?`, id).toArray()[0] ?? null;
}

/** Newest first by (created_at, id), optionally only one creator's; throws a RangeError for a cursor not made here. */
export function listSchedules(
  sql: SqlStorage,
  createdBy: string | null,
  limit: number,
  cursor: string | null,
): { rows: ScheduleRow[]; next_cursor: string | null } {
  const after = cursor === null ? null : decodeTimeIdCursor("schedules", cursor);
  if (cursor !== null && after === null) throw new RangeError("invalid cursor");
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (createdBy !== null) {
    where.push(`created_by = ?`);
    args.push(createdBy);
  }
  if (after) {
    where.push(`(created_at, id) < (?, ?)`);
    args.push(after.ms, after.id);
  }
  const rows = sql
    .exec<ScheduleRow>(
      `SELECT * FROM schedules ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...args,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { rows: page, next_cursor: rows.length > limit && last ? encodeTimeIdCursor("schedules", last.created_at, last.id) : null };
}

export interface ScheduleUpdate {
  cron?: string;
  timezone?: string;
  paused?: boolean;
  next_at?: number | null;
  last_fired_at?: number;
  disabled_reason?: DisabledReason;
  disabled_at?: number;
}

export function updateSchedule(sql: SqlStorage, id: string, update: ScheduleUpdate, now: number): void {
  const columns = Object.entries(update).filter(([, value]) => value !== undefined);
  const sets = columns.map(([name]) => `${name} = ?`);
  const values = columns.map(([name, value]) => (name === "paused" ? (value ? 1 : 0) : (value as string | number | null)));
  sql.exec(`UPDATE schedules SET ${[...sets, "updated_at = ?"].join(", ")} WHERE id = ?`, ...values, now, id);
}

/** Deletes the schedule and every firing it recorded; false when there was none. */
export function deleteSchedule(sql: SqlStorage, id: string): boolean {
  const removed = sql.exec(`DELETE FROM schedules WHERE id = ?`, id).rowsWritten > 0;
  sql.exec(`DELETE FROM firings WHERE schedule_id = ?`, id);
  return removed;
}

/** Schedules whose slot has come, earliest first. Paused and disabled ones have no slot. */
export function dueSchedules(sql: SqlStorage, now: number, limit: number): ScheduleRow[] {
  return sql
    .exec<ScheduleRow>(`SELECT * FROM schedules WHERE next_at IS NOT NULL AND next_at <= ? ORDER BY next_at, id LIMIT ?`, now, limit)
    .toArray();
}

export function firstSlot(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>(`SELECT MIN(next_at) AS at FROM schedules`).one().at;
}

/** Schedules that still fire and were created with this API key. */
export function schedulesOfKey(sql: SqlStorage, keyId: string): string[] {
  return sql
    .exec<{ id: string }>(`SELECT id FROM schedules WHERE key_id = ? AND disabled_reason IS NULL`, keyId)
    .toArray()
    .map((row) => row.id);
}

export function creatorOf(row: ScheduleRow): ScheduleCreator {
  return {
    subject: row.created_by,
    scopes: parseScopes(JSON.parse(row.scopes)),
    via: row.via === "api_key" ? "api_key" : "jwt",
    key_id: row.key_id,
    expires_at: row.expires_at,
  };
}

/** The stored action as JSON; the firing checks it against today's schemas before it acts. */
export function actionOf(row: ScheduleRow): unknown {
  return JSON.parse(row.action);
}

export function toSchedule(tenantId: string, row: ScheduleRow): Schedule {
  const action = JSON.parse(row.action) as ScheduleAction;
  const disabled = row.disabled_reason as DisabledReason | null;
  return {
    id: row.id,
    tenant_id: tenantId,
    created_by: row.created_by,
    cron: row.cron,
    timezone: row.timezone,
    paused: row.paused === 1,
    status: disabled !== null ? "disabled" : row.paused === 1 ? "paused" : "active",
    disabled_reason: disabled,
    disabled_at: row.disabled_at === null ? null : toIso(row.disabled_at),
    expires_at: row.expires_at === null ? null : toIso(row.expires_at),
    // The stored action keeps the MCP header values for the firings; a view shows them masked, as a session does.
    session: action.session && { ...action.session, ...(action.session.tools && { tools: maskToolSpecs(action.session.tools) }) },
    message: action.message,
    next_run_at: row.next_at === null ? null : toIso(row.next_at),
    last_fired_at: row.last_fired_at === null ? null : toIso(row.last_fired_at),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

// ---- firings -------------------------------------------------------------------------------

/**
 * Records a slot's firing as `pending`, before its action. The key is (schedule, slot), so a slot
 * is recorded at most once: false when it already was.
 */
export function insertFiring(sql: SqlStorage, scheduleId: string, scheduledAt: number, sessionId: string | null, now: number): boolean {
  const inserted =
    sql.exec(
      `INSERT INTO firings (schedule_id, scheduled_at, fired_at, session_id, outcome) VALUES (?, ?, ?, ?, 'pending')
       ON CONFLICT (schedule_id, scheduled_at) DO NOTHING`,
      scheduleId,
      scheduledAt,
      now,
      sessionId,
    ).rowsWritten > 0;
  if (inserted) pruneFirings(sql, scheduleId);
  return inserted;
}

export function getFiring(sql: SqlStorage, scheduleId: string, scheduledAt: number): FiringRow | null {
  return (
    sql.exec<FiringRow>(`SELECT * FROM firings WHERE schedule_id = ? AND scheduled_at = ?`, scheduleId, scheduledAt).toArray()[0] ?? null
  );
}

/**
 * A pending firing with no retry time is being acted on by the live object. On wake none is, so
 * those a crash interrupted are given a retry time of now, and are then completed like retries.
 */
export function reviveInterrupted(sql: SqlStorage, now: number): number {
  const { n } = sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM firings WHERE outcome = 'pending' AND retry_at IS NULL`).one();
  if (n > 0) sql.exec(`UPDATE firings SET retry_at = ? WHERE outcome = 'pending' AND retry_at IS NULL`, now);
  return n;
}

/** Pending firings whose next try has come, oldest slot first. */
export function retriesDue(sql: SqlStorage, now: number, limit: number): FiringRow[] {
  return sql
    .exec<FiringRow>(
      `SELECT * FROM firings WHERE outcome = 'pending' AND retry_at <= ? ORDER BY retry_at, scheduled_at LIMIT ?`,
      now,
      limit,
    )
    .toArray();
}

/** Claims a due retry for the try about to start, so no other alarm picks it meanwhile. */
export function claimRetry(sql: SqlStorage, firing: Pick<FiringRow, "schedule_id" | "scheduled_at">): boolean {
  return (
    sql.exec(
      `UPDATE firings SET retry_at = NULL WHERE schedule_id = ? AND scheduled_at = ? AND outcome = 'pending' AND retry_at IS NOT NULL`,
      firing.schedule_id,
      firing.scheduled_at,
    ).rowsWritten > 0
  );
}

export function firstRetry(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>(`SELECT MIN(retry_at) AS at FROM firings WHERE outcome = 'pending'`).one().at;
}

export function finishFiring(
  sql: SqlStorage,
  firing: Pick<FiringRow, "schedule_id" | "scheduled_at">,
  result: { outcome: Exclude<FiringOutcome, "pending">; error_code: string | null; error: string | null },
  now: number,
): void {
  sql.exec(
    `UPDATE firings SET outcome = ?, error_code = ?, error = ?, retry_at = NULL, finished_at = ? WHERE schedule_id = ? AND scheduled_at = ? AND outcome = 'pending'`,
    result.outcome,
    result.error_code,
    result.error,
    now,
    firing.schedule_id,
    firing.scheduled_at,
  );
}

/** A try that met a fault: the firing stays pending and is tried again at `retryAt`. */
export function retryFiring(
  sql: SqlStorage,
  firing: Pick<FiringRow, "schedule_id" | "scheduled_at">,
  attempts: number,
  retryAt: number,
): void {
  sql.exec(
    `UPDATE firings SET attempts = ?, retry_at = ? WHERE schedule_id = ? AND scheduled_at = ?`,
    attempts,
    retryAt,
    firing.schedule_id,
    firing.scheduled_at,
  );
}

/** A schedule's firings, newest slot first; throws a RangeError for a cursor not made here. */
export function listFirings(sql: SqlStorage, scheduleId: string, limit: number, cursor: string | null): Page<Firing> {
  const after = cursor === null ? null : decodeTimeIdCursor("firings", cursor);
  if (cursor !== null && (after === null || after.id !== scheduleId)) throw new RangeError("invalid cursor");
  const rows = after
    ? sql
        .exec<FiringRow>(
          `SELECT * FROM firings WHERE schedule_id = ? AND scheduled_at < ? ORDER BY scheduled_at DESC LIMIT ?`,
          scheduleId,
          after.ms,
          limit + 1,
        )
        .toArray()
    : sql
        .exec<FiringRow>(`SELECT * FROM firings WHERE schedule_id = ? ORDER BY scheduled_at DESC LIMIT ?`, scheduleId, limit + 1)
        .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toFiring),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("firings", last.scheduled_at, scheduleId) : null,
  };
}

function pruneFirings(sql: SqlStorage, scheduleId: string): void {
  sql.exec(
    `DELETE FROM firings WHERE schedule_id = ? AND scheduled_at < (
       SELECT scheduled_at FROM firings WHERE schedule_id = ? ORDER BY scheduled_at DESC LIMIT 1 OFFSET ?
     )`,
    scheduleId,
    scheduleId,
    MAX_FIRINGS_KEPT - 1,
  );
}

function toFiring(row: FiringRow): Firing {
  return {
    schedule_id: row.schedule_id,
    scheduled_at: toIso(row.scheduled_at),
    fired_at: toIso(row.fired_at),
    session_id: row.session_id,
    outcome: row.outcome as FiringOutcome,
    error_code: row.error_code as Firing["error_code"],
    error: row.error,
    finished_at: row.finished_at === null ? null : toIso(row.finished_at),
  };
}
