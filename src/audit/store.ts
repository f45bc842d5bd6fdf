/**
 * The audit log's table, in the objects where entries are read: each tenant's index (its own
 * log) and the registry (the platform's copy of platform actions). Append-only: nothing here
 * edits an entry, and the only delete is the 400-day expiry.
 */
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import type { Page } from "../session-config/types";
import { optionalCursor, optionalString, requirePageLimit } from "../shared/validate";
import { isAuditAction } from "./actions";
import { AUDIT_RETENTION_MS } from "./entry";
import type { AuditEntry, AuditListInput } from "./types";

/** Expired entries deleted with each append: the log sheds its old entries as fast as it grows. */
export const AUDIT_SWEEP_BATCH = 20;

/**
 * Keeps `entry` unless its id is kept already: an outbox that hands the same entry over twice
 * (its acknowledgement lost) adds nothing. Returns whether it was new.
 */
export function appendAuditEntry(sql: SqlStorage, entry: AuditEntry, now: number): boolean {
  const at = Date.parse(entry.at);
  const cursor = sql.exec(
    `INSERT OR IGNORE INTO audit_log (id, at, tenant_id, action, actor_sub, entry) VALUES (?, ?, ?, ?, ?, ?)`,
    entry.id,
    at,
    entry.tenant_id,
    entry.action,
    entry.actor?.sub ?? null,
    JSON.stringify(entry),
  );
  sweepAuditLog(sql, now, AUDIT_SWEEP_BATCH);
  return cursor.rowsWritten > 0;
}

/** Deletes up to `batch` entries older than the retention; returns how many. */
export function sweepAuditLog(sql: SqlStorage, now: number, batch: number): number {
  return sql.exec(
    `DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE at < ? ORDER BY at LIMIT ?)`,
    now - AUDIT_RETENTION_MS,
    batch,
  ).rowsWritten;
}

/** Newest first by (at, id); throws a RangeError for a cursor not made here. */
export function listAuditEntries(sql: SqlStorage, input: AuditListInput): Page<AuditEntry> {
  const where: string[] = [];
  const args: (string | number)[] = [];
  if (input.action) (where.push("action = ?"), args.push(input.action));
  if (input.actor) (where.push("actor_sub = ?"), args.push(input.actor));
  if (input.tenant_id) (where.push("tenant_id = ?"), args.push(input.tenant_id));
  if (input.since) (where.push("at >= ?"), args.push(Date.parse(input.since)));
  if (input.until) (where.push("at < ?"), args.push(Date.parse(input.until)));
  if (input.cursor) {
    const after = decodeTimeIdCursor("audit_log", input.cursor);
    if (!after) throw new RangeError("bad cursor");
    where.push("(at < ? OR (at = ? AND id < ?))");
    args.push(after.ms, after.ms, after.id);
  }
  const clause = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
  const rows = sql
    .exec<{ id: string; at: number; entry: string }>(
      `SELECT id, at, entry FROM audit_log ${clause} ORDER BY at DESC, id DESC LIMIT ?`,
      ...args,
      input.limit + 1,
    )
    .toArray();
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  const last = page[page.length - 1];
  return {
    data: page.map((row) => JSON.parse(row.entry) as AuditEntry),
    next_cursor: more && last ? encodeTimeIdCursor("audit_log", last.at, last.id) : null,
  };
}

/** Checks a list input received over RPC (the gateway checked it already; this is the object's own guard). */
export function parseAuditListInput(input: AuditListInput): AuditListInput {
  const time = (name: string, value: unknown): string | null => {
    if (value === null || value === undefined) return null;
    if (typeof value !== "string" || Number.isNaN(Date.parse(value))) throw new TypeError(`audit list: bad ${name}`);
    return value;
  };
  if (input.action != null && !isAuditAction(input.action)) throw new TypeError("audit list: unknown action");
  return {
    limit: requirePageLimit(input.limit),
    cursor: optionalCursor(input.cursor),
    action: input.action ?? null,
    actor: optionalString("actor", input.actor),
    tenant_id: optionalString("tenant_id", input.tenant_id),
    since: time("since", input.since),
    until: time("until", input.until),
  };
}
