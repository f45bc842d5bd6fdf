/** The shapes of the audit log: who acted, on what, and the entry kept. */
import type { AuditAction } from "./actions";

export interface AuditActor {
  /** The principal's subject. */
  sub: string;
  via: "jwt" | "api_key";
  /** The API key behind the request (a key, or a token exchanged from one); null for a plain JWT. */
  key_id: string | null;
}

/**
 * Who made a change and through which request, as the gateway knew it: handed to every call that
 * makes an audited change. Absent, the change is still recorded, with a null actor (the platform
 * itself: an approval that expired, a call made by another object).
 */
export interface AuditContext {
  actor: AuditActor | null;
  /** The platform's own id of the request. */
  request_id: string | null;
  /** The caller's `X-Request-Id`, kept apart: the caller chooses it, so it proves nothing. */
  client_request_id: string | null;
  /** From the header the deployment trusts only (src/api/client-address.ts); null when none is. */
  client_ip: string | null;
}

export interface AuditTarget {
  type: string;
  id: string;
}

export interface AuditEntry {
  id: string;
  /** ISO 8601. */
  at: string;
  tenant_id: string;
  actor: AuditActor | null;
  action: AuditAction;
  target: AuditTarget;
  request_id: string | null;
  client_request_id: string | null;
  client_ip: string | null;
  /** What changed: before and after for settings, limits and models; never a secret. */
  details: Record<string, unknown>;
}

/** A change to record, as the object that makes it describes it. */
export interface AuditChange {
  action: AuditAction;
  target: AuditTarget;
  details?: Record<string, unknown>;
}

export interface AuditListInput {
  limit: number;
  cursor: string | null;
  action?: AuditAction | null;
  actor?: string | null;
  /** ISO 8601, inclusive. */
  since?: string | null;
  /** ISO 8601, exclusive. */
  until?: string | null;
  /** The platform log only: one tenant's entries. */
  tenant_id?: string | null;
}

/** A change to record through `recordAudit`, made where no object holds it (an export, a deletion). */
export interface AuditRecordInput {
  change: AuditChange;
  by?: AuditContext;
}
