/**
 * API keys: their format, generation, parsing, hashing and verification against a stored
 * record. Pure apart from random generation and hashing; `now` is epoch milliseconds.
 *
 * Format: `ak_<tenant>.<key_id>.<secret>.<tag>`
 *   - `<tenant>`: the tenant id, UTF-8, base64url without padding. Tenant ids may contain `_`,
 *     `.` and `-`, so they are encoded; base64url has no `.`, which makes `.` a safe separator.
 *     It routes the lookup to the tenant's store without any global index.
 *   - `<key_id>`: `key_` + 24 lowercase hex characters (96 random bits), the lookup key and the
 *     public id shown in the API.
 *   - `<secret>`: 32 random bytes, base64url (43 characters). Only its hash is stored.
 *   - `<tag>`: HMAC-SHA256 of everything before it under the platform's `AUTH_API_KEY_SECRET`
 *     (api-key-secret.ts), base64url (43 characters). Only the platform can make one, so a key
 *     it did not issue is refused before any lookup: a forged key names no object.
 *
 * Keys issued before the tag existed (`ak_<tenant>.<key_id>.<secret>`, "legacy" keys) stay
 * valid; what bounds their cost is decided by the caller (see `AuthenticateDeps.legacyKeyTenant`).
 */
import { base64url } from "jose";
import { apiKeyTag } from "./api-key-secret";
import { sha256Hex, toHex } from "../shared/hex";
import { type AuthFailure, authFail, authOk, type AuthResult } from "./failure";
import { API_KEY_SCOPES, TENANT_ID_PATTERN, isValidTenantId, parseScopes, type Scope } from "./principal";

export const API_KEY_PREFIX = "ak_";
export const KEY_ID_PATTERN = /^key_[0-9a-f]{24}$/;
export const KEY_ID_CHARS = "key_".length + 24;
const KEY_ID_RANDOM_BYTES = 12;
/** 256 bits: beyond brute force, which is what lets a fast hash stand in for a password KDF. */
const SECRET_BYTES = 32;
const SECRET_CHARS = 43;
const TAG_CHARS = 43;
/** 64 UTF-8 bytes (the longest tenant id) encode to 86 base64url characters. */
const MAX_TENANT_PART_CHARS = 86;
export const MAX_API_KEY_LENGTH = API_KEY_PREFIX.length + MAX_TENANT_PART_CHARS + 1 + "key_".length + 24 + 1 + SECRET_CHARS + 1 + TAG_CHARS;

/** The body, then the tag when there is one (a legacy key has none). */
const API_KEY_SHAPE = /^(ak_([A-Za-z0-9_-]{2,86})\.(key_[0-9a-f]{24})\.([A-Za-z0-9_-]{43}))(?:\.([A-Za-z0-9_-]{43}))?$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** A key as the tenant store keeps it. `hash` is `hashApiKeySecret(secret)`; times are ISO 8601. */
export interface ApiKeyRecord {
  key_id: string;
  tenant_id: string;
  name: string;
  scopes: Scope[];
  hash: string;
  created_by: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  /** The tokens sessions this key creates may spend per UTC day; null or absent (keys made before budgets): none. */
  max_tokens_per_day?: number | null;
}

export interface ParsedApiKey {
  tenantId: string;
  keyId: string;
  secret: string;
  /** What the tag covers and the tag presented; null for a legacy key, which has none. */
  signed: { body: string; tag: string } | null;
}

export interface GeneratedApiKey {
  keyId: string;
  /** Shown to the creator once, never stored. */
  plaintext: string;
  hash: string;
}

/**
 * Throws on an invalid tenant id: the caller passes an authenticated principal's tenant.
 * `tagKey` is the loaded `AUTH_API_KEY_SECRET` (see api-key-secret.ts).
 */
export async function generateApiKey(tenantId: string, tagKey: CryptoKey): Promise<GeneratedApiKey> {
  if (!isValidTenantId(tenantId)) throw new RangeError("generateApiKey: invalid tenant id");
  const keyId = generateKeyId();
  const secret = base64url.encode(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
  const body = `${API_KEY_PREFIX}${base64url.encode(tenantId)}.${keyId}.${secret}`;
  return { keyId, plaintext: `${body}.${await apiKeyTag(tagKey, body)}`, hash: await hashApiKeySecret(secret) };
}

export function generateKeyId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(KEY_ID_RANDOM_BYTES));
  return `key_${toHex(bytes)}`;
}

/**
 * Pure and strict: anything not exactly in one of the formats above is null, so lookups only see
 * clean ids. The tag is not checked here (that needs the platform's secret: `apiKeyTagMatches`).
 */
export function parseApiKey(plaintext: string): ParsedApiKey | null {
  if (plaintext.length > MAX_API_KEY_LENGTH) return null;
  const match = API_KEY_SHAPE.exec(plaintext);
  if (!match) return null;
  const [, body = "", tenantPart = "", keyId = "", secret = "", tag] = match;
  const tenantId = decodeTenantPart(tenantPart);
  if (tenantId === null) return null;
  return { tenantId, keyId, secret, signed: tag === undefined ? null : { body, tag } };
}

/**
 * SHA-256, hex. A slow password hash exists to make guessing low-entropy passwords expensive;
 * a 256-bit random secret cannot be guessed, so it would only add latency to every request.
 */
export async function hashApiKeySecret(secret: string): Promise<string> {
  return sha256Hex(secret);
}

/**
 * Checks a presented key against its stored record (null when the lookup found none). The
 * secret is checked before revocation and expiry, so only a holder of the secret can learn
 * (through logs) that a key was revoked or expired. The principal's subject is `key:<key_id>`:
 * stable per key, so sessions a backend creates stay visible to that same key.
 */
export async function verifyApiKey(
  parsed: ParsedApiKey,
  record: ApiKeyRecord | null,
  now: number,
  presentedHash?: string,
): Promise<AuthResult> {
  if (!record || record.key_id !== parsed.keyId || record.tenant_id !== parsed.tenantId) return authFail("key_unknown");
  const failure = checkApiKeyRecord(parsed, presentedHash ?? (await hashApiKeySecret(parsed.secret)), record, now);
  if (failure) return authFail(failure);
  const expiresAt = record.expires_at === null ? undefined : Date.parse(record.expires_at);
  const scopes = keyScopes(record);
  return authOk({
    tenantId: record.tenant_id,
    subject: `key:${record.key_id}`,
    scopes,
    via: "api_key",
    keyId: record.key_id,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  });
}

/** The scopes a key grants: those stored that a key may carry. */
export function keyScopes(record: Pick<ApiKeyRecord, "scopes">): Scope[] {
  return parseScopes(record.scopes).filter((scope) => API_KEY_SCOPES.includes(scope));
}

/**
 * Pure: why `record` does not accept a presented key of tenant `tenantId` and id `keyId` whose
 * secret hashes to `presentedHash`, or null when it does. The one set of checks, shared by
 * `verifyApiKey` and by the tenant index when it admits a key's request in the same call.
 */
export function checkApiKeyRecord(
  presented: Pick<ParsedApiKey, "tenantId" | "keyId">,
  presentedHash: string,
  record: ApiKeyRecord | null,
  now: number,
): AuthFailure | null {
  if (!namesKey(record, presented)) return "key_unknown";
  if (!SHA256_HEX.test(record.hash) || !constantTimeEqual(presentedHash, record.hash)) return "key_secret_mismatch";
  return keyStandingProblem(record, now);
}

/**
 * Pure: whether the key a token was exchanged from still stands (exists for this tenant, not
 * revoked, not expired at `now`): `checkApiKeyRecord`'s checks but the secret's, which the token
 * proved when it was issued. The tenant index applies it when it admits such a token's request.
 */
export function exchangedKeyStands(
  record: ApiKeyRecord | null,
  source: { tenantId: string; keyId?: string | undefined },
  now: number,
): boolean {
  return namesKey(record, source) && keyStandingProblem(record, now) === null;
}

/** Whether `record` is the key `presented` names, in the tenant it names. */
function namesKey(record: ApiKeyRecord | null, presented: { tenantId: string; keyId?: string | undefined }): record is ApiKeyRecord {
  return record !== null && record.key_id === presented.keyId && record.tenant_id === presented.tenantId;
}

/**
 * Pure: why a key that exists no longer stands at `now` (revoked, expired), or null while it
 * does. The one standing rule: requests, exchanged tokens, event streams and schedules apply it.
 */
export function keyStandingProblem(
  record: Pick<ApiKeyRecord, "revoked_at" | "expires_at">,
  now: number,
): "key_revoked" | "key_expired" | null {
  if (record.revoked_at !== null) return "key_revoked";
  if (record.expires_at !== null) {
    const expiresAt = Date.parse(record.expires_at);
    // An unreadable expiry fails closed.
    if (Number.isNaN(expiresAt) || now >= expiresAt) return "key_expired";
  }
  return null;
}

/** Equal-length hex digests compared without an early exit on the first differing byte. */
function constantTimeEqual(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}

/** Only the canonical encoding of a valid tenant id is accepted, so each tenant has one spelling. */
function decodeTenantPart(part: string): string | null {
  let bytes: Uint8Array;
  try {
    bytes = base64url.decode(part);
  } catch {
    return null;
  }
  if (base64url.encode(bytes) !== part) return null;
  // Invalid UTF-8 decodes to U+FFFD, which the ASCII-only tenant pattern refuses.
  const tenantId = new TextDecoder().decode(bytes);
  return TENANT_ID_PATTERN.test(tenantId) ? tenantId : null;
}
