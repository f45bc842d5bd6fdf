/**
 * The audit logs: every administrative change, newest first, read to their end (or as far as
 * the caller iterates). The tenant's needs `tenant:admin`; the platform's, `platform:admin`.
 */
import type { PlatformClient } from "./client.ts";
import { auditActionValues } from "./generated/openapi.ts";
import { iteratePages } from "./pages.ts";
import type { AuditAction, AuditEntry } from "./types.ts";

/** Every action an entry may record, in the document's order (the closed list the `action` filter takes). */
export const AUDIT_ACTIONS: readonly AuditAction[] = auditActionValues;

export interface AuditLogFilter {
  action?: AuditAction;
  /** The actor's `sub`. */
  actor?: string;
  /** ISO 8601, inclusive. */
  since?: string;
  /** ISO 8601, exclusive. */
  until?: string;
}

/** The caller's tenant's entries. */
export function tenantAuditLog(client: PlatformClient, filter: AuditLogFilter = {}): AsyncGenerator<AuditEntry, void, undefined> {
  return iteratePages((cursor) => client.GET("/v1/tenant/audit-log", { params: { query: { ...filter, cursor } } }));
}

/** With `tenant_id`, that tenant's entries; without, the platform actions of every tenant. */
export function platformAuditLog(
  client: PlatformClient,
  filter: AuditLogFilter & { tenant_id?: string } = {},
): AsyncGenerator<AuditEntry, void, undefined> {
  return iteratePages((cursor) => client.GET("/v1/admin/audit-log", { params: { query: { ...filter, cursor } } }));
}
