/**
 * The retention sweep, run from the tenant index's alarm: a bounded pass over the tenant's
 * sessions whose last change is older than the retention, oldest first, each erased exactly as
 * `DELETE /v1/sessions/{id}` erases it (`eraseSessionTree`: owed notifications handed off, then
 * the object's storage, the index row and the child sessions). The session object decides last:
 * one that changed or woke since the index saw it is kept.
 */
import { describeError, log } from "../log";
import { ApiError } from "../problems";
import { eraseSessionTree } from "../sessions/erase";
import {
  DAY_MS,
  expiresAt,
  RETAINABLE_STATUSES,
  RETENTION_RETRY_MS,
  RETENTION_SWEEP_BATCH,
  retentionCutoff,
} from "../session-config/retention";
import { recordLifecycle } from "./record";

export interface RetentionRule {
  days: number;
  /** A day's length in ms (`Config.retentionDayMs`). */
  dayMs: number;
}

export interface SweepPass {
  erased: number;
  /** The pass took a whole batch: more may be due at once. */
  full: boolean;
}

const RETAINABLE = RETAINABLE_STATUSES.map((status) => `'${status}'`).join(", ");

/**
 * Child sessions are not swept on their own: each goes with the session that started it (as a
 * delete takes them), whose last change comes after theirs.
 */
function expiredSessions(sql: SqlStorage, cutoff: number, limit: number): string[] {
  return sql
    .exec<{ id: string }>(
      `SELECT id FROM sessions WHERE updated_at < ? AND parent_session_id IS NULL AND status IN (${RETAINABLE}) ORDER BY updated_at, id LIMIT ?`,
      cutoff,
      limit,
    )
    .toArray()
    .map((row) => row.id);
}

/** When the next session expires (epoch ms), or null when none could. */
export function nextExpiry(sql: SqlStorage, rule: RetentionRule): number | null {
  const row = sql
    .exec<{ updated_at: number }>(
      `SELECT updated_at FROM sessions WHERE parent_session_id IS NULL AND status IN (${RETAINABLE}) ORDER BY updated_at, id LIMIT 1`,
    )
    .toArray()[0];
  return row ? expiresAt(row.updated_at, rule.days, rule.dayMs) : null;
}

/** The least wait before a pass that left expired rows (kept by their objects) looks again, in the rule's scale. */
export function retryGapMs(rule: RetentionRule): number {
  return Math.max(1, Math.round((RETENTION_RETRY_MS * rule.dayMs) / DAY_MS));
}

/**
 * One pass. `removeRow` drops an index row whose session object is gone already (an erase whose
 * index cleanup failed). A failure on one session is logged and the pass goes on.
 */
export async function sweepExpired(
  env: Cloudflare.Env,
  sql: SqlStorage,
  tenantId: string,
  rule: RetentionRule,
  now: number,
  removeRow: (sessionId: string) => void,
): Promise<SweepPass> {
  const cutoff = retentionCutoff(now, rule.days, rule.dayMs);
  const ids = expiredSessions(sql, cutoff, RETENTION_SWEEP_BATCH);
  let erased = 0;
  for (const id of ids) {
    try {
      if (!(await eraseSessionTree(env, tenantId, id, cutoff))) continue;
      erased++;
      recordLifecycle({ action: "session.deleted", tenant_id: tenantId, session_id: id, reason: "retention", retention_days: rule.days });
    } catch (error) {
      if (error instanceof ApiError && error.code === "not_found") removeRow(id);
      else log("warn", "retention_erase_failed", { tenant_id: tenantId, session_id: id, error: describeError(error) });
    }
  }
  return { erased, full: ids.length === RETENTION_SWEEP_BATCH };
}
