/**
 * The retention sweep, a stage of the index's alarm: a bounded pass over the tenant's sessions
 * whose last change is older than the retention, oldest first, each erased as
 * `DELETE /v1/sessions/{id}` erases it: the session object (which decides last: one that changed
 * or woke since the index saw it is kept), then its row, then its child sessions, deepest first.
 * The index works on its own rows here; the session objects are reached through `SessionEraser`,
 * given by the module that wires the object (src/lifecycle/), since erasing a session is an
 * operation of the layer above.
 */
import { RETENTION_SWEEP_BATCH } from "../../limits";
import { describeError, log } from "../../log";
import { recordLifecycle } from "../lifecycle-record";
import { expiresAt, retentionCutoff, type RetentionRule } from "../../session-config/retention";
import { childSessionIds, expiredSessionIds, oldestRetainableUpdate } from "../sessions-store";
import type { IndexHost } from "./host";
import { dropSession } from "./sessions";

/** How the sweep reaches a session object. Each throws when the object could not be asked. */
export interface SessionEraser {
  /** Erases the session object unless it changed since `cutoff`: "kept" then, "gone" when there is no such session object. */
  eraseIfExpired(tenantId: string, sessionId: string, cutoff: number): Promise<"erased" | "kept" | "gone">;
  /** Erases a child session's object; one that is gone already is no failure. */
  erase(tenantId: string, sessionId: string): Promise<void>;
}

export interface SweepPass {
  erased: number;
  /** The pass took a whole batch: more may be due at once. */
  full: boolean;
}

/** Above the highest `max_agent_depth` a tenant can be given (10): deeper is a loop in the data, not a tree. */
const MAX_ERASE_DEPTH = 11;

/** When the next session expires (epoch ms), or null when none could. */
export function nextExpiry(sql: SqlStorage, rule: RetentionRule): number | null {
  const updatedAt = oldestRetainableUpdate(sql);
  return updatedAt === null ? null : expiresAt(updatedAt, rule.days, rule.dayMs);
}

/**
 * Where a pass finds and drops rows: the index's own tables, or a shard's (through its stub). The
 * audit entry of each removal is the index's either way.
 */
export interface SessionRows {
  expired(cutoff: number, limit: number): Promise<string[]>;
  children(parentId: string): Promise<string[]>;
  /**
   * The row, its slot and queue place go and a tombstone stays; false when there was none.
   * `removed` is called once it went: inside the same transaction where the row is the index's own.
   */
  drop(id: string, removed?: () => void): Promise<boolean>;
}

export function indexRows(host: IndexHost): SessionRows {
  return {
    expired: async (cutoff, limit) => expiredSessionIds(host.sql, cutoff, limit),
    children: async (parentId) => childSessionIds(host.sql, parentId),
    drop: async (id, removed) =>
      host.transaction(() => {
        const gone = dropSession(host.sql, id, Date.now());
        if (gone) removed?.();
        return gone;
      }),
  };
}

/** One pass; a session that fails is logged and the pass goes on. */
export async function sweepExpired(
  host: IndexHost,
  eraser: SessionEraser,
  tenantId: string,
  rule: RetentionRule,
  now: number,
  rows: SessionRows = indexRows(host),
): Promise<SweepPass> {
  const cutoff = retentionCutoff(now, rule.days, rule.dayMs);
  const ids = await rows.expired(cutoff, RETENTION_SWEEP_BATCH);
  let erased = 0;
  for (const id of ids) {
    try {
      const outcome = await eraser.eraseIfExpired(tenantId, id, cutoff);
      // An erase whose index cleanup failed left the row: it goes alone, as a delete's retry takes it.
      if (outcome === "gone") await rows.drop(id);
      if (outcome !== "erased") continue;
      await removeRow(host, rows, id);
      await eraseChildren(host, rows, eraser, tenantId, id, 0);
      erased++;
      recordLifecycle({ action: "session.deleted", tenant_id: tenantId, session_id: id, reason: "retention", retention_days: rule.days });
    } catch (error) {
      log("warn", "retention_erase_failed", { tenant_id: tenantId, session_id: id, error: describeError(error) });
    }
  }
  await host.schedulePump();
  return { erased, full: ids.length === RETENTION_SWEEP_BATCH };
}

/** The row and its audit entry (no actor: the retention erased it), as `removeSession` writes them. */
async function removeRow(host: IndexHost, rows: SessionRows, id: string): Promise<void> {
  await rows.drop(id, () => host.audit(undefined, { action: "session.deleted", target: { type: "session", id } }));
}

/** Each child's own children before its row, so a failure midway leaves rows the next pass finds. */
async function eraseChildren(
  host: IndexHost,
  rows: SessionRows,
  eraser: SessionEraser,
  tenantId: string,
  parentId: string,
  depth: number,
): Promise<void> {
  if (depth > MAX_ERASE_DEPTH) return;
  for (const child of await rows.children(parentId)) {
    await eraseChildren(host, rows, eraser, tenantId, child, depth + 1);
    await eraser.erase(tenantId, child);
    await removeRow(host, rows, child);
  }
}
