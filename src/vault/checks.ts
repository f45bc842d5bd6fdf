/**
 * The vault object's own checks of what it is handed (the gateway checks every field first, with
 * paths, in schemas.ts): these keep the tables' invariants whatever a caller sends, and throw.
 * Also the two shapes egress sees: a credential ready to send, and a lookup that failed.
 */
import { END_USER_SUBJECT_PATTERN } from "../auth/principal";
import type { CredentialLookup, CredentialProblem, EgressCredential } from "../egress/credentials";
import { requireInt, requireNow } from "../shared/validate";
import type { CredentialRow } from "./store";
import { CREDENTIAL_NAME_PATTERN, CREDENTIAL_TYPES, type CredentialSecrets, MAX_SECRET_BYTES, type PutCredential } from "./types";

const SECRET_FIELDS = ["value", "access_token", "refresh_token", "client_secret"] as const;
const encoder = new TextEncoder();

export function requireName(value: unknown): string {
  if (typeof value !== "string" || !CREDENTIAL_NAME_PATTERN.test(value)) throw new TypeError("name is not a credential name");
  return value;
}

/** An end user's subject, or null for the tenant. */
export function requireSubject(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || !END_USER_SUBJECT_PATTERN.test(value)) throw new TypeError("subject is not an end user's subject");
  return value;
}

export function checkPut(input: PutCredential): PutCredential {
  const type = input.type;
  if (!CREDENTIAL_TYPES.includes(type)) throw new TypeError("type is not a credential type");
  if (typeof input.header !== "string" || !/^[!#$%&'*+.^_`|~0-9a-z-]{1,128}$/.test(input.header))
    throw new TypeError("header is not a lower-case header name");
  const secrets: CredentialSecrets = {};
  for (const field of SECRET_FIELDS) {
    const value = input.secrets?.[field];
    if (value === undefined) continue;
    if (typeof value !== "string" || value === "" || encoder.encode(value).byteLength > MAX_SECRET_BYTES)
      throw new TypeError(`secrets.${field} must be a string of 1 to ${MAX_SECRET_BYTES} bytes`);
    secrets[field] = value;
  }
  const needed = type === "oauth2" ? "access_token" : "value";
  if (secrets[needed] === undefined) throw new TypeError(`secrets.${needed} is required for ${type}`);
  if (!Array.isArray(input.allowedOrigins) || input.allowedOrigins.length === 0 || input.allowedOrigins.some((o) => typeof o !== "string"))
    throw new TypeError("allowedOrigins must be a non-empty list of origins");
  const tokenUrl = input.tokenUrl === null ? null : String(input.tokenUrl);
  if (secrets.refresh_token !== undefined && tokenUrl === null) throw new TypeError("a refresh token needs a token URL");
  return {
    subject: requireSubject(input.subject),
    name: requireName(input.name),
    type,
    header: input.header,
    secrets,
    expiresAt: input.expiresAt === null ? null : requireInt("expiresAt", input.expiresAt, 0),
    tokenUrl,
    clientId: input.clientId === null ? null : String(input.clientId),
    allowedOrigins: [...input.allowedOrigins],
    max: requireInt("max", input.max, 0),
    now: requireNow(input.now),
  };
}

export function ownerKind(owner: string): "end_user" | "tenant" {
  return owner.startsWith("end_user:") ? "end_user" : "tenant";
}

/** The header a row's secrets make: `Bearer …` in `authorization` but for the `header` type. */
export function egressCredential(
  row: Pick<CredentialRow, "owner" | "name" | "type" | "header" | "allowed_origins" | "refreshable">,
  secrets: CredentialSecrets,
): EgressCredential {
  const value = row.type === "header" ? secrets.value! : `Bearer ${row.type === "bearer" ? secrets.value! : secrets.access_token!}`;
  return {
    name: row.name,
    owner: ownerKind(row.owner),
    header: row.header,
    value,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    refreshable: row.type === "oauth2" && row.refreshable === 1,
  };
}

const DETAILS: Record<CredentialProblem, string> = {
  credential_missing: "no such credential is connected",
  credential_refresh_failed: "its refresh failed; it must be connected again",
  vault_unavailable: "the platform's credential vault is not configured (VAULT_KEYS)",
};

/** A failed lookup; `detail` names the credential, never a value. */
export function lookupFailure(code: CredentialProblem, name: string, owner: "end_user" | "tenant" | null, why?: string): CredentialLookup {
  return { ok: false, code, name, owner, detail: `Credential "${name}": ${why ?? DETAILS[code]}.` };
}
