/**
 * The single entry point of authentication: reads `Authorization: Bearer <credential>` and
 * dispatches to the API key or JWT path. `now` is epoch milliseconds.
 */
import { API_KEY_PREFIX, hashApiKeySecret, parseApiKey, verifyApiKey, type ApiKeyRecord } from "./api-keys";
import { authFail, type AuthResult } from "./failure";
import { MAX_JWT_BYTES, verifyJwt, type JwtDeps } from "./jwt";

const SCHEME = "Bearer ";
/** The longest credential (a JWT at its cap) plus the scheme; anything longer is refused unread. */
export const MAX_AUTHORIZATION_LENGTH = SCHEME.length + MAX_JWT_BYTES;
/** RFC 6750 `b64token` after exactly one space; the scheme name is case-insensitive (RFC 9110). */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * What may be done with a well-formed API key before any I/O: look it up, or refuse it because
 * its id is known not to exist, or because its client address is blocked (see `AuthGuard`).
 */
export type KeyScreen = "look_up" | "known_unknown" | "address_blocked";

export interface AuthenticateDeps extends JwtDeps {
  /**
   * Looks a key up in the tenant's own store; null when there is none. `presentedHash` is the
   * hash of the secret presented, for a store that checks it too (and then admits the request
   * in the same round trip); the verdict is still `verifyApiKey`'s, here.
   */
  findApiKey(tenantId: string, keyId: string, presentedHash: string): Promise<ApiKeyRecord | null>;
  /** Consulted before `findApiKey`; without it every well-formed key is looked up. */
  screenApiKey?(tenantId: string, keyId: string): KeyScreen;
}

export async function authenticate(authorization: string | null, deps: AuthenticateDeps, now: number): Promise<AuthResult> {
  if (authorization === null || authorization.trim() === "") return authFail("missing_credentials");
  if (authorization.length > MAX_AUTHORIZATION_LENGTH) return authFail("credential_too_large");
  const match = BEARER.exec(authorization);
  const credential = match?.[1];
  if (credential === undefined) return authFail("malformed_authorization");
  return credential.startsWith(API_KEY_PREFIX) ? authenticateApiKey(credential, deps, now) : verifyJwt(credential, deps, now);
}

async function authenticateApiKey(credential: string, deps: AuthenticateDeps, now: number): Promise<AuthResult> {
  const parsed = parseApiKey(credential);
  if (!parsed) return authFail("malformed_api_key");
  const screen = deps.screenApiKey?.(parsed.tenantId, parsed.keyId) ?? "look_up";
  if (screen === "known_unknown") return authFail("key_unknown_cached");
  if (screen === "address_blocked") return authFail("address_blocked");
  const presentedHash = await hashApiKeySecret(parsed.secret);
  let record: ApiKeyRecord | null;
  try {
    record = await deps.findApiKey(parsed.tenantId, parsed.keyId, presentedHash);
  } catch {
    return authFail("key_store_unavailable");
  }
  return verifyApiKey(parsed, record, now, presentedHash);
}
