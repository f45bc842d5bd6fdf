/**
 * Each tenant's jurisdiction, in the registry (`tenant_placements`, storage.md): where every
 * object of the tenant is created. It may change only while the tenant holds no data; a tenant
 * holds data from the moment its index is bound (its first request, or a platform admin's change
 * to its limits, models or suspension: the registry then lists it), so a listed tenant's
 * jurisdiction is settled.
 */
import { JURISDICTIONS, type Jurisdiction, type Placement } from "../objects";
import { isRegistered, readDeletion } from "./registry-store";

/** Why a jurisdiction was not set: the tenant holds data (it is listed), or it is deleted or being deleted. */
export type JurisdictionChange =
  { ok: true; jurisdiction: Jurisdiction | null; changed: boolean } | { ok: false; reason: "holds_data" | "deleted" };

export function isJurisdiction(value: unknown): value is Jurisdiction {
  return typeof value === "string" && (JURISDICTIONS as readonly string[]).includes(value);
}

export function readJurisdiction(sql: SqlStorage, tenantId: string): Jurisdiction | null {
  const row = sql.exec<{ jurisdiction: string }>(`SELECT jurisdiction FROM tenant_placements WHERE tenant_id = ?`, tenantId).toArray()[0];
  return row && isJurisdiction(row.jurisdiction) ? row.jurisdiction : null;
}

export function readPlacement(sql: SqlStorage, tenantId: string): Placement {
  return { jurisdiction: readJurisdiction(sql, tenantId), settled: isRegistered(sql, tenantId) || readDeletion(sql, tenantId) !== null };
}

/** Sets the jurisdiction of a tenant that holds no data (null removes it); call inside a transaction with its audit entry. */
export function writeJurisdiction(sql: SqlStorage, tenantId: string, jurisdiction: Jurisdiction | null, now: number): JurisdictionChange {
  if (readDeletion(sql, tenantId)) return { ok: false, reason: "deleted" };
  if (isRegistered(sql, tenantId)) return { ok: false, reason: "holds_data" };
  const before = readJurisdiction(sql, tenantId);
  if (jurisdiction === null) sql.exec(`DELETE FROM tenant_placements WHERE tenant_id = ?`, tenantId);
  else
    sql.exec(
      `INSERT INTO tenant_placements (tenant_id, jurisdiction, set_at) VALUES (?, ?, ?)
       ON CONFLICT (tenant_id) DO UPDATE SET jurisdiction = excluded.jurisdiction, set_at = excluded.set_at`,
      tenantId,
      jurisdiction,
      now,
    );
  return { ok: true, jurisdiction, changed: before !== jurisdiction };
}
