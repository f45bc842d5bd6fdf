/** The vault's shapes: a credential as written, as shown (never a secret), and the answers of its calls. */

export const CREDENTIAL_TYPES = ["bearer", "header", "oauth2"] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];
export const CREDENTIAL_STATUSES = ["ok", "expired", "refresh_failed"] as const;
export type CredentialStatus = (typeof CREDENTIAL_STATUSES)[number];

/** A credential's name: the one rule egress keeps, since tools name credentials too. */
export { CREDENTIAL_NAME_PATTERN } from "../egress/credentials";
/** The bytes (UTF-8) of one secret: a token, a header's value, a client secret. */
export const MAX_SECRET_BYTES = 8 * 1024;

/** The secrets of a credential: what is sealed, never stored or shown in the clear. */
export interface CredentialSecrets {
  /** bearer: the token; header: the header's value. */
  value?: string;
  access_token?: string;
  refresh_token?: string;
  client_secret?: string;
}

/** A credential to write, checked and normalized by the gateway (the object checks its invariants again). */
export interface PutCredential {
  /** The end user's subject (without `end_user:`); null for the tenant's own credential. */
  subject: string | null;
  name: string;
  type: CredentialType;
  /** The header's name, lower case: the named one for `header`, `authorization` for the others. */
  header: string;
  secrets: CredentialSecrets;
  /** oauth2 only; ms since the epoch. */
  expiresAt: number | null;
  tokenUrl: string | null;
  clientId: string | null;
  /** Normalized origins. */
  allowedOrigins: string[];
  /** The owner's limit: `max_credentials_per_end_user` or `max_credentials_per_tenant`. */
  max: number;
  now: number;
}

/** A credential as every response shows it. */
export interface Credential {
  name: string;
  type: CredentialType;
  header: string;
  allowed_origins: string[];
  /** ISO 8601; null for a credential without expiry. */
  expires_at: string | null;
  updated_at: string;
  status: CredentialStatus;
}

export interface CredentialKey {
  subject: string | null;
  name: string;
}

export type VaultFailure =
  | { ok: false; reason: "vault_unavailable" }
  | { ok: false; reason: "credential_not_found" }
  | { ok: false; reason: "limit_reached"; max: number; of: "end_user" | "tenant" };

export type VaultResult<T> = { ok: true; value: T } | VaultFailure;

/** One pass of re-encryption: rows moved under the first key, and rows left under another. */
export interface ResealProgress {
  resealed: number;
  /** Rows still under a key other than the first (unreadable ones included). */
  remaining: number;
  /** Rows no listed key opens: their key was dropped from VAULT_KEYS too early. */
  unreadable: number;
}
