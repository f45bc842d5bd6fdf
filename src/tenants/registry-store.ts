/**
 * The platform's list of tenants, so a platform admin can enumerate them (each tenant's data
 * lives in its own index object, which cannot be listed). One row per tenant, never updated.
 */
import type { Page } from "../sessions/types";
import { decodeKeyCursor, encodeKeyCursor } from "../shared/cursor";
import type { TenantEntry } from "./types";
import { toIso } from "./validate";

interface TenantRow extends Record<string, string | number> {
  tenant_id: string;
  created_at: number;
}

/** Idempotent: a tenant registered again keeps its first `created_at`. */
export function registerTenant(sql: SqlStorage, tenantId: string, now: number): void {
  sql.exec(`INSERT INTO tenants (tenant_id, created_at) VALUES (?, ?) ON CONFLICT (tenant_id) DO NOTHING`, tenantId, now);
}

export function isRegistered(sql: SqlStorage, tenantId: string): boolean {
  return sql.exec(`SELECT 1 FROM tenants WHERE tenant_id = ?`, tenantId).toArray().length > 0;
}

/** By tenant id, ascending; throws a RangeError for a cursor not made here. */
export function listTenants(sql: SqlStorage, limit: number, cursor: string | null): Page<TenantEntry> {
  let rows: TenantRow[];
  if (cursor === null) {
    rows = sql.exec<TenantRow>(`SELECT tenant_id, created_at FROM tenants ORDER BY tenant_id LIMIT ?`, limit + 1).toArray();
  } else {
    const after = decodeKeyCursor("tenants", cursor);
    if (after === null) throw new RangeError("invalid cursor");
    rows = sql
      .exec<TenantRow>(`SELECT tenant_id, created_at FROM tenants WHERE tenant_id > ? ORDER BY tenant_id LIMIT ?`, after, limit + 1)
      .toArray();
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => ({ tenant_id: row.tenant_id, created_at: toIso(row.created_at) })),
    next_cursor: rows.length > limit && last ? encodeKeyCursor("tenants", last.tenant_id) : null,
  };
}
