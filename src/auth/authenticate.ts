/**
 * The single entry point of authentication: reads `Authorization: Bearer <credential>` and
 * dispatches to the API key or JWT path. `now` is epoch milliseconds.
 */
import { apiKeyTagMatches } from "./api-key-secret";
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
  /**
   * The loaded `AUTH_API_KEY_SECRET`, which checks a key's tag before any I/O; null when it is
   * not configured: a tagged key then cannot be judged and fails closed.
   */
  apiKeySecret: CryptoKey | null;
  /**
   * Whether a legacy key (issued before keys carried a tag, so not provably issued) of this
   * tenant may be looked up: false refuses it before `findApiKey`. Asked after the screen.
   * Null when legacy keys are turned off (`AUTH_LEGACY_API_KEYS=false`): refused without I/O.
   */
  legacyKeyTenant: ((tenantId: string) => Promise<boolean>) | null;
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
  // No I/O before this: a key the platform did not issue names no object at all.
  if (parsed.signed !== null) {
    if (deps.apiKeySecret === null) return authFail("api_key_secret_unavailable");
    if (!(await apiKeyTagMatches(deps.apiKeySecret, parsed.signed.body, parsed.signed.tag))) return authFail("key_tag_mismatch");
  } else if (deps.legacyKeyTenant === null) {
    return authFail("legacy_keys_off");
  }
  const screen = deps.screenApiKey?.(parsed.tenantId, parsed.keyId) ?? "look_up";
  if (screen === "known_unknown") return authFail("key_unknown_cached");
  if (screen === "address_blocked") return authFail("address_blocked");
  const presentedHash = await hashApiKeySecret(parsed.secret);
  let record: ApiKeyRecord | null;
  try {
    if (parsed.signed === null && deps.legacyKeyTenant !== null && !(await deps.legacyKeyTenant(parsed.tenantId)))
      return authFail("legacy_key_tenant_unknown");
    record = await deps.findApiKey(parsed.tenantId, parsed.keyId, presentedHash);
  } catch {
    return authFail("key_store_unavailable");
  }
  return verifyApiKey(parsed, record, now, presentedHash);
}
