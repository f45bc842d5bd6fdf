/**
 * Who a request acts as: the authenticated principal, its scopes and what they imply, the one
 * tenant-id rule of the platform, and the rate bucket a principal is counted in. Pure: no I/O,
 * no clock.
 */

export type Scope =
  | "sessions:read"
  | "sessions:write"
  | "agents:write"
  | "memory:read"
  | "memory:write"
  | "end_users:issue"
  | "tenant:admin"
  | "platform:admin";

export const ALL_SCOPES: readonly Scope[] = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "end_users:issue",
  "tenant:admin",
  "platform:admin",
];

/**
 * Scopes an API key may carry. `platform:admin` is left out on purpose: keys are minted by
 * tenant admins, and no tenant may mint a credential that reaches other tenants, even if a
 * route forgets to check. Platform admins authenticate with JWTs only.
 */
export const API_KEY_SCOPES: readonly Scope[] = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "end_users:issue",
  "tenant:admin",
];

/** The scopes an end-user token may carry: its own sessions, chats and memory, nothing of the tenant's. */
export const END_USER_SCOPES: readonly Scope[] = ["sessions:read", "sessions:write", "memory:read", "memory:write"];

/**
 * Subjects with this prefix are end users (`POST /v1/auth/end-user-token`): only the platform's
 * issuer names them, so an identity provider's token can never pass for one, nor one for it.
 */
export const END_USER_SUBJECT_PREFIX = "end_user:";
/** Subjects with this prefix name API keys; only the platform may issue tokens for them. */
export const API_KEY_SUBJECT_PREFIX = "key:";

/** The end user a principal's or a session creator's subject names, or null for anyone else. */
export function endUserOf(subject: string): string | null {
  return subject.startsWith(END_USER_SUBJECT_PREFIX) ? subject.slice(END_USER_SUBJECT_PREFIX.length) : null;
}
/** An end user's subject as its backend names it (the part after the prefix). */
export const MAX_END_USER_SUBJECT_CHARS = 128;
export const END_USER_SUBJECT_PATTERN = new RegExp(`^[A-Za-z0-9_@.:-]{1,${MAX_END_USER_SUBJECT_CHARS}}$`);

/** What kind of credential a principal stands for, as `GET /v1/me` names it. */
export type PrincipalKind = "user" | "api_key" | "end_user" | "platform";

export interface Principal {
  tenantId: string;
  /** Stable per identity; stored as a session's `created_by`. */
  subject: string;
  scopes: Scope[];
  via: "jwt" | "api_key";
  /** The API key behind this principal: set for API keys and for tokens exchanged from one. */
  keyId?: string;
  /** When the credential stops being valid, epoch ms: a JWT's `exp`, an API key's expiry; absent when it has none. */
  expiresAt?: number;
  /**
   * A stream token (`POST /v1/auth/stream-token`, the platform's audience with `:events`): good
   * for `GET /v1/sessions/{id}/events` only, the one route that takes a token in its URL.
   */
  streamOnly?: true;
  /**
   * An end user's subject as its backend named it (without the `end_user:` prefix of `subject`):
   * set only for the platform's end-user tokens, which every end-user rule keys on.
   */
  endUser?: string;
  /**
   * The API key that minted an end user's token, when a key did: the token stops working when
   * the key does, as a token exchanged from the key does (`keyId` stays unset: the end user is
   * not the key, and is counted in a rate bucket of its own).
   */
  sourceKeyId?: string;
  /** The metadata its backend gave an end user's token, for `GET /v1/me`. */
  endUserMetadata?: Record<string, string>;
  /** When an end user's token was issued, epoch ms: what its revocation cut-off is compared with. */
  issuedAt?: number;
}

/**
 * The API key a credential stands on: its own (a key, or a token exchanged from one), or the key
 * that minted an end user's token. Its revocation ends the credential and the streams it opened.
 */
export function standingKeyOf(principal: Pick<Principal, "keyId" | "sourceKeyId">): string | undefined {
  return principal.keyId ?? principal.sourceKeyId;
}

/** Pure: the kind of credential behind `principal`. */
export function principalKind(principal: Principal): PrincipalKind {
  if (principal.endUser !== undefined) return "end_user";
  if (principal.keyId !== undefined) return "api_key";
  return principal.scopes.includes("platform:admin") ? "platform" : "user";
}

/**
 * The one tenant-id rule: 1–64 characters, a letter or digit first, then letters, digits,
 * `_`, `.`, `-`. Narrow enough to be safe in Durable Object names, logs and URLs.
 */
export const MAX_TENANT_ID_CHARS = 64;
export const TENANT_ID_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,${MAX_TENANT_ID_CHARS - 1}}$`);

export function isValidTenantId(value: unknown): value is string {
  return typeof value === "string" && TENANT_ID_PATTERN.test(value);
}

/**
 * What each held scope grants, spelled out rather than derived from a hierarchy so an auditor
 * can read it in one place. `sessions:write` does not imply `sessions:read`: a write-only
 * backend key is a legitimate, narrower grant. `tenant:admin` reaches only its own tenant; that
 * boundary is structural (every store call takes the principal's tenant), and cross-tenant
 * routes must use `canAdministerTenant`.
 */
const GRANTS: Readonly<Record<Scope, readonly Scope[]>> = {
  "sessions:read": ["sessions:read"],
  "sessions:write": ["sessions:write"],
  // Changing an agent changes what every session of it runs: a grant of its own, not sessions:write.
  "agents:write": ["agents:write"],
  // Like sessions: a write-only grant is a legitimate, narrower one.
  "memory:read": ["memory:read"],
  "memory:write": ["memory:write"],
  // Minting tokens for the tenant's own users: a backend's grant, narrower than tenant:admin.
  "end_users:issue": ["end_users:issue"],
  "tenant:admin": ["tenant:admin", "sessions:read", "sessions:write", "agents:write", "memory:read", "memory:write", "end_users:issue"],
  "platform:admin": ALL_SCOPES,
};

export function hasScope(principal: Pick<Principal, "scopes">, scope: Scope): boolean {
  return principal.scopes.some((held) => GRANTS[held].includes(scope));
}

/** For routes addressed by a tenant id in the path: platform admins, or that tenant's admins. */
export function canAdministerTenant(principal: Principal, tenantId: string): boolean {
  if (principal.scopes.includes("platform:admin")) return true;
  return principal.scopes.includes("tenant:admin") && principal.tenantId === tenantId;
}

/** Whether the principal sees every session of its tenant, not only those it created. */
export function seesAllTenantSessions(principal: Principal): boolean {
  return hasScope(principal, "tenant:admin");
}

export function isScope(value: unknown): value is Scope {
  return typeof value === "string" && (ALL_SCOPES as readonly string[]).includes(value);
}

/**
 * Keeps the known scopes of a space-separated string (the `scope` claim) or a string array
 * (the `scp` claim, stored key records), in canonical order without duplicates. Unknown
 * entries are dropped rather than refused: identity providers add their own scopes.
 */
export function parseScopes(value: unknown): Scope[] {
  let items: unknown[];
  if (typeof value === "string") items = value.split(/\s+/);
  else if (Array.isArray(value)) items = value;
  else return [];
  const present = new Set(items.filter(isScope));
  return ALL_SCOPES.filter((scope) => present.has(scope));
}

/**
 * The per-caller rate bucket: the API key (a token exchanged from it shares its budget), else
 * the JWT subject. The tenant-wide limit is applied by the tenant index on top of it.
 */
export function rateBucket(principal: Principal): string {
  return principal.keyId !== undefined ? keyBucket(principal.keyId) : `sub:${principal.subject}`;
}

/** An API key's bucket, named before its key is verified (see `admitApiKey`). */
export const keyBucket = (keyId: string) => `key:${keyId}`;
