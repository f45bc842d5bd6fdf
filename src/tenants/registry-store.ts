/**
 * The platform's list of tenants, so a platform admin can enumerate them (each tenant's data
 * lives in its own index object, which cannot be listed). One row per tenant, never updated;
 * a deleted tenant's row goes, and a row in `tenant_deletions` keeps it from coming back.
 */
import type { Page } from "../session-config/types";
import { decodeKeyCursor, encodeKeyCursor } from "../shared/cursor";
import type { TenantEntry } from "./types";
import { toIso } from "../shared/validate";

interface TenantRow extends Record<string, string | number | null> {
  tenant_id: string;
  created_at: number;
  jurisdiction: string | null;
}

/** A tenant's row with its jurisdiction, if a platform admin set one (placement-store.ts). */
const TENANT_COLUMNS = `t.tenant_id AS tenant_id, t.created_at AS created_at, p.jurisdiction AS jurisdiction
  FROM tenants t LEFT JOIN tenant_placements p ON p.tenant_id = t.tenant_id`;

/** Idempotent: a tenant registered again keeps its first `created_at`. False: the tenant was deleted, and stays so. */
export function registerTenant(sql: SqlStorage, tenantId: string, now: number): boolean {
  if (readDeletion(sql, tenantId)) return false;
  sql.exec(`INSERT INTO tenants (tenant_id, created_at) VALUES (?, ?) ON CONFLICT (tenant_id) DO NOTHING`, tenantId, now);
  return true;
}

/** A tenant's deletion as the registry keeps it; epoch ms, `finished_at` null while it runs. */
export interface DeletionRecord {
  started_at: number;
  finished_at: number | null;
}

export function readDeletion(sql: SqlStorage, tenantId: string): DeletionRecord | null {
  const row = sql
    .exec<{ started_at: number; finished_at: number | null }>(
      `SELECT started_at, finished_at FROM tenant_deletions WHERE tenant_id = ?`,
      tenantId,
    )
    .toArray()[0];
  return row ? { started_at: row.started_at, finished_at: row.finished_at } : null;
}

/** Insert-if-absent: a deletion asked for again keeps its first start. */
export function beginDeletion(sql: SqlStorage, tenantId: string, startedAt: number): DeletionRecord {
  sql.exec(
    `INSERT INTO tenant_deletions (tenant_id, started_at, finished_at) VALUES (?, ?, NULL) ON CONFLICT (tenant_id) DO NOTHING`,
    tenantId,
    startedAt,
  );
  return readDeletion(sql, tenantId)!;
}

/** The last step of a deletion: the tenant leaves the list, and its record says when it went. Idempotent. */
export function finishDeletion(sql: SqlStorage, tenantId: string, startedAt: number, finishedAt: number): DeletionRecord {
  sql.exec(
    `INSERT INTO tenant_deletions (tenant_id, started_at, finished_at) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id) DO UPDATE SET finished_at = COALESCE(finished_at, excluded.finished_at)`,
    tenantId,
    startedAt,
    finishedAt,
  );
  sql.exec(`DELETE FROM tenants WHERE tenant_id = ?`, tenantId);
  // The tenant's placement stays: its objects are still addressed after it goes (the storage report, a late alarm), where they were.
  return readDeletion(sql, tenantId)!;
}

export function isRegistered(sql: SqlStorage, tenantId: string): boolean {
  return sql.exec(`SELECT 1 FROM tenants WHERE tenant_id = ?`, tenantId).toArray().length > 0;
}

/** By tenant id, ascending; throws a RangeError for a cursor not made here. */
export function listTenants(sql: SqlStorage, limit: number, cursor: string | null): Page<TenantEntry> {
  let rows: TenantRow[];
  if (cursor === null) {
    rows = sql.exec<TenantRow>(`SELECT ${TENANT_COLUMNS} ORDER BY t.tenant_id LIMIT ?`, limit + 1).toArray();
  } else {
    const after = decodeKeyCursor("tenants", cursor);
    if (after === null) throw new RangeError("invalid cursor");
    rows = sql.exec<TenantRow>(`SELECT ${TENANT_COLUMNS} WHERE t.tenant_id > ? ORDER BY t.tenant_id LIMIT ?`, after, limit + 1).toArray();
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => ({
      tenant_id: row.tenant_id,
      created_at: toIso(row.created_at),
      jurisdiction: row.jurisdiction === "eu" || row.jurisdiction === "fedramp" ? row.jurisdiction : null,
    })),
    next_cursor: rows.length > limit && last ? encodeKeyCursor("tenants", last.tenant_id) : null,
  };
}
