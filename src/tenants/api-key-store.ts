/**
 * The tenant's API keys. Only the hash of each key's secret is stored (the plaintext is shown
 * once at creation and never reaches this object); listings leave even the hash out.
 */
import type { Page } from "../session-config/types";
import type { ApiKeyRecord } from "../auth/api-keys";
import { isScope, type Scope } from "../auth/principal";
import { decodeTimeIdCursor, encodeTimeIdCursor } from "../shared/cursor";
import { requireInt, requireIsoMs, requireString, toIso } from "../shared/validate";

export type { ApiKeyRecord };
export type ApiKeyListing = Omit<ApiKeyRecord, "hash">;

interface ApiKeyRow extends Record<string, string | number | null> {
  key_id: string;
  name: string;
  scopes: string;
  hash: string;
  created_by: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  last_used_at: number | null;
  max_tokens_per_day: number | null;
}

/** Throws on a malformed record or a key id already in use: both are bugs in the caller. */
export function insertApiKey(sql: SqlStorage, tenantId: string, record: ApiKeyRecord): void {
  if (typeof record !== "object" || record === null) throw new TypeError("record must be an object");
  if (record.tenant_id !== tenantId) throw new TypeError("record.tenant_id does not match the tenant");
  if (!Array.isArray(record.scopes) || !record.scopes.every(isScope)) throw new TypeError("record.scopes must be known scopes");
  const keyId = requireString("record.key_id", record.key_id);
  const taken = sql.exec(`SELECT 1 FROM api_keys WHERE key_id = ?`, keyId).toArray();
  if (taken.length > 0) throw new Error("api key id already exists");
  sql.exec(
    `INSERT INTO api_keys (key_id, name, scopes, hash, created_by, created_at, expires_at, revoked_at, last_used_at, max_tokens_per_day)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    keyId,
    requireString("record.name", record.name),
    JSON.stringify(record.scopes),
    requireString("record.hash", record.hash),
    requireString("record.created_by", record.created_by),
    requireIsoMs("record.created_at", record.created_at),
    optionalIsoMs("record.expires_at", record.expires_at),
    optionalIsoMs("record.revoked_at", record.revoked_at),
    optionalIsoMs("record.last_used_at", record.last_used_at),
    record.max_tokens_per_day == null ? null : requireInt("record.max_tokens_per_day", record.max_tokens_per_day, 0),
  );
}

/** The full record, hash included, for verifying a presented key; revoked keys are returned too. */
export function findApiKey(sql: SqlStorage, tenantId: string, keyId: string): ApiKeyRecord | null {
  const row = sql.exec<ApiKeyRow>(`SELECT * FROM api_keys WHERE key_id = ?`, keyId).toArray()[0];
  return row ? { ...toListing(tenantId, row), hash: row.hash } : null;
}

export function touchApiKey(sql: SqlStorage, keyId: string, now: number): boolean {
  return sql.exec(`UPDATE api_keys SET last_used_at = ? WHERE key_id = ?`, now, keyId).rowsWritten > 0;
}

/** A key's daily token budget; null for none, or a key this tenant does not have. */
export function keyTokenBudget(sql: SqlStorage, keyId: string): number | null {
  if (keyId === "") return null;
  return sql.exec<{ n: number | null }>(`SELECT max_tokens_per_day AS n FROM api_keys WHERE key_id = ?`, keyId).toArray()[0]?.n ?? null;
}

/** Sets a key's daily token budget (null: none); false when the tenant has no such key. */
export function setKeyTokenBudget(sql: SqlStorage, keyId: string, maxTokensPerDay: number | null): boolean {
  const value = maxTokensPerDay === null ? null : requireInt("maxTokensPerDay", maxTokensPerDay, 0);
  // A revoked key's budget is no longer its to change: not found.
  return sql.exec(`UPDATE api_keys SET max_tokens_per_day = ? WHERE key_id = ? AND revoked_at IS NULL`, value, keyId).rowsWritten > 0;
}

/** True when the key exists; revoking twice keeps the first revocation time. */
/** `found`: the key exists; `revoked`: this call revoked it (false when it already was). */
export function revokeApiKey(sql: SqlStorage, keyId: string, now: number): { found: boolean; revoked: boolean } {
  const found = sql.exec(`SELECT 1 FROM api_keys WHERE key_id = ?`, keyId).toArray().length > 0;
  const revoked =
    found && sql.exec(`UPDATE api_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL`, now, keyId).rowsWritten > 0;
  return { found, revoked };
}

/** Newest first by (created_at, key_id); throws a RangeError for a cursor not made here. */
export function listApiKeys(sql: SqlStorage, tenantId: string, limit: number, cursor: string | null): Page<ApiKeyListing> {
  let rows: ApiKeyRow[];
  if (cursor === null) {
    rows = sql.exec<ApiKeyRow>(`SELECT * FROM api_keys ORDER BY created_at DESC, key_id DESC LIMIT ?`, limit + 1).toArray();
  } else {
    const after = decodeTimeIdCursor("api_keys", cursor);
    if (!after) throw new RangeError("invalid cursor");
    rows = sql
      .exec<ApiKeyRow>(
        `SELECT * FROM api_keys WHERE (created_at, key_id) < (?, ?) ORDER BY created_at DESC, key_id DESC LIMIT ?`,
        after.ms,
        after.id,
        limit + 1,
      )
      .toArray();
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    data: page.map((row) => toListing(tenantId, row)),
    next_cursor: rows.length > limit && last ? encodeTimeIdCursor("api_keys", last.created_at, last.key_id) : null,
  };
}

function toListing(tenantId: string, row: ApiKeyRow): ApiKeyListing {
  return {
    key_id: row.key_id,
    tenant_id: tenantId,
    name: row.name,
    scopes: JSON.parse(row.scopes) as Scope[],
    created_by: row.created_by,
    created_at: toIso(row.created_at),
    expires_at: optionalIso(row.expires_at),
    revoked_at: optionalIso(row.revoked_at),
    last_used_at: optionalIso(row.last_used_at),
    // Absent rather than null when there is none, as in records made before key budgets.
    ...(row.max_tokens_per_day == null ? {} : { max_tokens_per_day: row.max_tokens_per_day }),
  };
}

function optionalIsoMs(name: string, value: unknown): number | null {
  return value === null || value === undefined ? null : requireIsoMs(name, value);
}

function optionalIso(ms: number | null): string | null {
  return ms === null ? null : toIso(ms);
}
