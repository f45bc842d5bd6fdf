/**
 * The tenant's session index: one compact row per session, kept current by the session objects' reports,
 * for listing, counting and finding the active ones. The one module that reads or writes the
 * `sessions` table (the run slots, the retention sweep and the tenant's deletion ask it); the
 * session object stays the source of truth. The run-slot bookkeeping that follows a report or a
 * removal is the caller's (tenant-index/sessions.ts), so run-slots.ts can count slots through here.
 */
import {
  ACTIVE_STATUSES,
  type Page,
  SESSION_STATUSES,
  SLOT_STATUSES,
  type SessionStatus,
  type SessionSummary,
  type StopReason,
} from "../session-config/types";
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import { MAX_METADATA_FILTERS } from "../session-config/metadata";
import { RETAINABLE_STATUSES } from "../session-config/retention";
import { METADATA_BOUNDS, type ReportRow, requireStatus } from "./session-report";
import type { SessionFilter, StatusCounts } from "./types";
import { NO_USAGE, recordDailyUsage } from "./usage";
import { addRollup } from "./usage-rollup";
import { optionalString, optionalStringRecord, toIso, utcDay } from "../shared/validate";

/**
 * A removed session's id is remembered this long, so a report still in flight when it was erased
 * cannot bring the row back and count its usage a second time.
 */
export const REMOVED_SESSION_MEMORY_MS = 24 * 60 * 60 * 1000;
/** Forgotten tombstones deleted per removal, so the cleanup cost stays small and bounded. */
const TOMBSTONE_PURGE_BATCH = 100;

type SessionRow = Omit<ReportRow, "metadata"> & Record<string, string | number | null>;

const ACTIVE_PLACEHOLDERS = ACTIVE_STATUSES.map(() => "?").join(", ");

export function parseSessionFilter(input: SessionFilter): SessionFilter {
  return {
    status: input.status == null ? null : requireStatus(input.status),
    created_by: optionalString("created_by", input.created_by),
    agent_id: optionalString("agent_id", input.agent_id),
    parent_session_id: optionalString("parent_session_id", input.parent_session_id),
    metadata: optionalStringRecord("metadata", input.metadata, { ...METADATA_BOUNDS, maxEntries: MAX_METADATA_FILTERS }),
  };
}

/**
 * Applies a report unless it is stale (revision not newer) or of a removed session. Usage is
 * counted as the difference from the totals already held, which makes a repeated report harmless.
 */
export function recordSessionReport(sql: SqlStorage, report: ReportRow): boolean {
  const removed = sql.exec<{ removed_at: number }>(`SELECT removed_at FROM removed_sessions WHERE id = ?`, report.id).toArray()[0];
  if (removed) {
    // A session created before the removal is the one erased; one created after it reuses the id
    // (a chat's id names its session, and a deleted chat may be started again) and is a new session.
    if (report.created_at <= removed.removed_at) return false;
    sql.exec(`DELETE FROM removed_sessions WHERE id = ?`, report.id);
  }
  const previous = sql.exec<SessionRow>(`SELECT * FROM sessions WHERE id = ?`, report.id).toArray()[0];
  if (previous && report.revision <= previous.revision) return false;
  sql.exec(
    `INSERT INTO sessions (id, created_by, status, stop_reason, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, steps, created_at, updated_at, revision, agent_id, agent_version, parent_session_id, title, model, api_key_id, runs)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET
       title = COALESCE(sessions.title, excluded.title),
       status = excluded.status, stop_reason = excluded.stop_reason,
       input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
       cache_read_tokens = excluded.cache_read_tokens, cache_write_tokens = excluded.cache_write_tokens, steps = excluded.steps,
       updated_at = excluded.updated_at, revision = excluded.revision,
       model = CASE WHEN excluded.model = '' THEN model ELSE excluded.model END,
       api_key_id = CASE WHEN excluded.api_key_id = '' THEN api_key_id ELSE excluded.api_key_id END,
       runs = MAX(runs, excluded.runs)`,
    report.id,
    report.created_by,
    report.status,
    report.stop_reason,
    report.input_tokens,
    report.output_tokens,
    report.cache_read_tokens,
    report.cache_write_tokens,
    report.steps,
    report.created_at,
    report.updated_at,
    report.revision,
    report.agent_id,
    report.agent_version,
    report.parent_session_id,
    report.title,
    report.model,
    report.api_key_id,
    report.runs,
  );
  // Metadata never changes after creation: written with the row, and again (a no-op for the
  // entries held) while the row has no title, which also covers rows from before migration 11.
  if (report.metadata && (!previous || previous.title === null || previous.title === undefined)) {
    for (const [key, value] of Object.entries(report.metadata)) {
      sql.exec(`INSERT OR IGNORE INTO session_metadata (session_id, key, value) VALUES (?, ?, ?)`, report.id, key, value);
    }
  }
  // Totals never shrink; a lower figure in a newer report is not a refund.
  const grown = (name: "input_tokens" | "output_tokens" | "cache_read_tokens" | "cache_write_tokens" | "steps" | "runs") =>
    Math.max(0, report[name] - Number(previous?.[name] ?? 0));
  const delta = {
    input_tokens: grown("input_tokens"),
    output_tokens: grown("output_tokens"),
    cache_read_tokens: grown("cache_read_tokens"),
    cache_write_tokens: grown("cache_write_tokens"),
    steps: grown("steps"),
  };
  const day = utcDay(report.updated_at);
  recordDailyUsage(sql, day, { ...delta, sessions_created: 0 });
  // The same difference, by who and what spent it; a dimension the report does not tell keeps the stored one.
  addRollup(
    sql,
    {
      day,
      model: report.model || String(previous?.model ?? ""),
      api_key_id: report.api_key_id || String(previous?.api_key_id ?? ""),
      created_by: report.created_by,
      agent_id: report.agent_id ?? "",
    },
    { ...delta, runs: grown("runs") },
  );
  if (!previous) recordDailyUsage(sql, utcDay(report.created_at), { ...NO_USAGE, sessions_created: 1 });
  return true;
}

export function getSession(sql: SqlStorage, id: string): SessionSummary | null {
  const row = sql.exec<SessionRow>(`SELECT * FROM sessions WHERE id = ?`, id).toArray()[0];
  return row ? toSummary(row) : null;
}

/**
 * Of `ids`, the sessions a cancellation can still reach: listed with a run going, or admitted to a
 * run whose first report has not come yet (its reservation stands for it until then).
 */
export function cancellableSessionIds(sql: SqlStorage, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  const marks = ids.map(() => "?").join(", ");
  const active = ACTIVE_STATUSES.map(() => "?").join(", ");
  return sql
    .exec<{ id: string }>(
      `SELECT id FROM sessions WHERE id IN (${marks}) AND status IN (${active})
       UNION
       SELECT session_id AS id FROM run_reservations WHERE session_id IN (${marks})`,
      ...ids,
      ...ACTIVE_STATUSES,
      ...ids,
    )
    .toArray()
    .map((row) => row.id);
}

export function removeSession(sql: SqlStorage, id: string, now: number): boolean {
  const existed = sql.exec(`DELETE FROM sessions WHERE id = ?`, id).rowsWritten > 0;
  sql.exec(`DELETE FROM session_metadata WHERE session_id = ?`, id);
  sql.exec(
    `INSERT INTO removed_sessions (id, removed_at) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET removed_at = excluded.removed_at`,
    id,
    now,
  );
  sql.exec(
    `DELETE FROM removed_sessions WHERE id IN (SELECT id FROM removed_sessions WHERE removed_at <= ? LIMIT ?)`,
    now - REMOVED_SESSION_MEMORY_MS,
    TOMBSTONE_PURGE_BATCH,
  );
  return existed;
}

/**
 * Newest first, by (created_at, id). The cursor is the position of the last row returned, so a
 * session created while a client pages sorts before the cursor and never shifts later pages.
 * Throws a RangeError for a cursor this module did not make.
 */
/** Null `sql`: an index no tenant was entered in; the cursor is still checked. */
export function listSessions(sql: SqlStorage | null, filter: SessionFilter, limit: number, cursor: string | null): Page<SessionSummary> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (filter.status) {
    where.push("status = ?");
    args.push(filter.status);
  }
  if (filter.created_by) {
    where.push("created_by = ?");
    args.push(filter.created_by);
  }
  if (filter.agent_id) {
    where.push("agent_id = ?");
    args.push(filter.agent_id);
  }
  if (filter.parent_session_id) {
    where.push("parent_session_id = ?");
    args.push(filter.parent_session_id);
  }
  for (const [key, value] of Object.entries(filter.metadata ?? {})) {
    where.push("id IN (SELECT session_id FROM session_metadata WHERE key = ? AND value = ?)");
    args.push(key, value);
  }
  if (cursor !== null) {
    const after = decodeTimeIdCursor("sessions", cursor);
    if (!after) throw new RangeError("invalid cursor");
    where.push("(created_at, id) < (?, ?)");
    args.push(after.ms, after.id);
  }
  if (sql === null) return { data: [], next_cursor: null };
  const rows = sql
    .exec<SessionRow>(
      `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY created_at DESC, id DESC LIMIT ?`,
      ...args,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map(toSummary),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("sessions", last.created_at, last.id) : null,
  };
}

/** Null `sql`: an index no tenant was entered in, with no tables yet. */
export function countByStatus(sql: SqlStorage | null): StatusCounts {
  const counts = Object.fromEntries(SESSION_STATUSES.map((status) => [status, 0])) as StatusCounts;
  if (sql === null) return counts;
  for (const row of sql.exec<{ status: SessionStatus; n: number }>(`SELECT status, COUNT(*) AS n FROM sessions GROUP BY status`)) {
    counts[row.status] = row.n;
  }
  return counts;
}

/** Ids of the sessions holding a run slot that match the filter. */
export function activeSessionIds(sql: SqlStorage, filter: SessionFilter): string[] {
  let query = `SELECT id FROM sessions WHERE status IN (${ACTIVE_PLACEHOLDERS})`;
  const args: string[] = [...ACTIVE_STATUSES];
  if (filter.status) {
    query += " AND status = ?";
    args.push(filter.status);
  }
  if (filter.created_by) {
    query += " AND created_by = ?";
    args.push(filter.created_by);
  }
  if (filter.agent_id) {
    query += " AND agent_id = ?";
    args.push(filter.agent_id);
  }
  return sql
    .exec<{ id: string }>(query, ...args)
    .toArray()
    .map((row) => row.id);
}

const SLOT_PLACEHOLDERS = SLOT_STATUSES.map(() => "?").join(", ");
const RETAINABLE = RETAINABLE_STATUSES.map((status) => `'${status}'`).join(", ");

/** Slots in use (sessions reported in a slot status, and reservations), apart from `sessionId`'s own (so asking again never refuses itself). */
export function slotsInUse(sql: SqlStorage, sessionId: string): number {
  return sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM (
         SELECT id FROM sessions WHERE status IN (${SLOT_PLACEHOLDERS})
         UNION
         SELECT session_id AS id FROM run_reservations
       ) WHERE id <> ?`,
      ...SLOT_STATUSES,
      sessionId,
    )
    .one().n;
}

/**
 * Sessions whose last change is before `cutoff` and that retention may erase, oldest first. Child
 * sessions are not swept on their own: each goes with the session that started it (as a delete
 * takes them), whose last change comes after theirs.
 */
export function expiredSessionIds(sql: SqlStorage, cutoff: number, limit: number): string[] {
  return sql
    .exec<{ id: string }>(
      `SELECT id FROM sessions WHERE updated_at < ? AND parent_session_id IS NULL AND status IN (${RETAINABLE}) ORDER BY updated_at, id LIMIT ?`,
      cutoff,
      limit,
    )
    .toArray()
    .map((row) => row.id);
}

/** The last change of the session retention would erase first (epoch ms), or null when none could be. */
export function oldestRetainableUpdate(sql: SqlStorage): number | null {
  const row = sql
    .exec<{ updated_at: number }>(
      `SELECT updated_at FROM sessions WHERE parent_session_id IS NULL AND status IN (${RETAINABLE}) ORDER BY updated_at, id LIMIT 1`,
    )
    .toArray()[0];
  return row ? row.updated_at : null;
}

/** The sessions `parentId` started (its `agent` calls' children), newest first. */
export function childSessionIds(sql: SqlStorage, parentId: string): string[] {
  return sql
    .exec<{ id: string }>(`SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY created_at DESC, id DESC`, parentId)
    .toArray()
    .map((row) => row.id);
}

export function sessionCount(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM sessions`).one().n;
}

/** Up to `limit` session ids, in id order: the tenant's deletion takes them batch by batch. */
export function sessionIdBatch(sql: SqlStorage, limit: number): string[] {
  return sql
    .exec<{ id: string }>(`SELECT id FROM sessions ORDER BY id LIMIT ?`, limit)
    .toArray()
    .map((row) => row.id);
}

/** Drops rows whose session objects were purged (the tenant's deletion): no tombstone, the index goes next. */
export function dropSessionRows(sql: SqlStorage, ids: readonly string[]): void {
  for (const id of ids) sql.exec(`DELETE FROM sessions WHERE id = ?`, id);
}

function toSummary(row: SessionRow): SessionSummary {
  return {
    id: row.id,
    created_by: row.created_by,
    title: row.title ?? null,
    agent: row.agent_id === null || row.agent_id === undefined ? null : { id: row.agent_id, version: Number(row.agent_version) },
    parent_session_id: row.parent_session_id ?? null,
    status: row.status,
    stop_reason: row.stop_reason as StopReason | null,
    usage: {
      steps: row.steps,
      input_tokens: row.input_tokens,
      output_tokens: row.output_tokens,
      cache_read_tokens: row.cache_read_tokens,
      cache_write_tokens: row.cache_write_tokens,
    },
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}
