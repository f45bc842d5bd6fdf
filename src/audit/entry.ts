/**
 * Making and checking audit entries. Pure: the id and the time are passed in. Every entry's
 * details pass the platform's secret masking (MCP header values anywhere in them) and a size cap
 * before they are kept, so no route can leak a secret through the log.
 */
import { maskMcpHeadersDeep } from "../session-config/masking";
import { isAuditAction } from "./actions";
import type { AuditActor, AuditChange, AuditContext, AuditEntry, AuditTarget } from "./types";

/** API.md: entries are kept 400 days. */
export const AUDIT_RETENTION_MS = 400 * 24 * 60 * 60 * 1000;
/** Details larger than this are replaced by a note: an entry says what changed, not a copy of it. */
export const MAX_AUDIT_DETAILS_CHARS = 16 * 1024;
/** Ids, subjects, request ids and addresses longer than this were not made by the platform. */
const MAX_FIELD_CHARS = 512;
const AUDIT_ID_PREFIX = "aud_";
const AUDIT_ID_PATTERN = /^aud_[A-Za-z0-9_-]{24}$/;
const RANDOM_BYTES = 18;

/** `aud_` and 18 random bytes in base64url: an id made once, with the change, so a resend is recognized. */
export function newAuditId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(RANDOM_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return AUDIT_ID_PREFIX + btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function auditEntry(tenantId: string, context: AuditContext | undefined, change: AuditChange, id: string, now: number): AuditEntry {
  const ctx = context ?? NO_CONTEXT;
  return {
    id,
    at: new Date(now).toISOString(),
    tenant_id: tenantId,
    actor: ctx.actor,
    action: change.action,
    target: change.target,
    request_id: ctx.request_id,
    client_request_id: ctx.client_request_id,
    client_ip: ctx.client_ip,
    details: safeDetails(change.details ?? {}),
  };
}

const NO_CONTEXT: AuditContext = { actor: null, request_id: null, client_request_id: null, client_ip: null };

function safeDetails(details: Record<string, unknown>): Record<string, unknown> {
  const masked = maskMcpHeadersDeep(details) as Record<string, unknown>;
  return JSON.stringify(masked).length > MAX_AUDIT_DETAILS_CHARS ? { truncated: true } : masked;
}

/** Whether two JSON values are the same change (a write of what was already there records nothing). */
export function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** Checks a context received over RPC; throws a TypeError for one no gateway makes. */
export function parseAuditContext(value: unknown): AuditContext | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object") throw new TypeError("audit context: not an object");
  const record = value as Record<string, unknown>;
  return {
    actor: record.actor === null || record.actor === undefined ? null : parseActor(record.actor),
    request_id: optionalField("request_id", record.request_id),
    client_request_id: optionalField("client_request_id", record.client_request_id),
    client_ip: optionalField("client_ip", record.client_ip),
  };
}

/** Checks an entry handed over by another object (its outbox) or a caller of `recordAudit`. */
export function parseAuditEntry(value: unknown): AuditEntry {
  if (value === null || typeof value !== "object") throw new TypeError("audit entry: not an object");
  const r = value as Record<string, unknown>;
  if (typeof r.id !== "string" || !AUDIT_ID_PATTERN.test(r.id)) throw new TypeError("audit entry: bad id");
  if (typeof r.at !== "string" || Number.isNaN(Date.parse(r.at))) throw new TypeError("audit entry: bad time");
  if (!isAuditAction(r.action)) throw new TypeError("audit entry: unknown action");
  if (r.details === null || typeof r.details !== "object" || Array.isArray(r.details)) throw new TypeError("audit entry: bad details");
  return {
    id: r.id,
    at: new Date(Date.parse(r.at)).toISOString(),
    tenant_id: requireField("tenant_id", r.tenant_id),
    actor: r.actor === null ? null : parseActor(r.actor),
    action: r.action,
    target: parseTarget(r.target),
    request_id: optionalField("request_id", r.request_id),
    // An entry made before the field existed (an outbox's, handed over late) had none.
    client_request_id: optionalField("client_request_id", r.client_request_id),
    client_ip: optionalField("client_ip", r.client_ip),
    details: safeDetails(r.details as Record<string, unknown>),
  };
}

/** Checks a change received over RPC (`recordAudit`). */
export function parseAuditChange(value: unknown): AuditChange {
  if (value === null || typeof value !== "object") throw new TypeError("audit change: not an object");
  const r = value as Record<string, unknown>;
  if (!isAuditAction(r.action)) throw new TypeError("audit change: unknown action");
  if (r.details !== undefined && (r.details === null || typeof r.details !== "object" || Array.isArray(r.details)))
    throw new TypeError("audit change: bad details");
  return { action: r.action, target: parseTarget(r.target), details: r.details as Record<string, unknown> | undefined };
}

function parseActor(value: unknown): AuditActor {
  if (value === null || typeof value !== "object") throw new TypeError("audit actor: not an object");
  const r = value as Record<string, unknown>;
  if (r.via !== "jwt" && r.via !== "api_key") throw new TypeError("audit actor: bad via");
  return { sub: requireField("sub", r.sub), via: r.via, key_id: optionalField("key_id", r.key_id) };
}

function parseTarget(value: unknown): AuditTarget {
  if (value === null || typeof value !== "object") throw new TypeError("audit target: not an object");
  const r = value as Record<string, unknown>;
  return { type: requireField("target.type", r.type), id: requireField("target.id", r.id) };
}

function requireField(name: string, value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_FIELD_CHARS) throw new TypeError(`audit: bad ${name}`);
  return value;
}

function optionalField(name: string, value: unknown): string | null {
  return value === null || value === undefined ? null : requireField(name, value);
}
