/**
 * The platform's own short-lived tokens. `POST /v1/auth/token`: an API key principal becomes a
 * platform JWT with the same tenant, subject and scopes, for a browser where an API key must
 * never go. `POST /v1/auth/stream-token`: any principal that may read sessions gets a stream
 * token, good for the events route only, the one credential a URL may carry. Neither outlives
 * the credential it came from.
 */
import type { Config } from "../config";
import type { PlatformKeys } from "./platform-keys";
import { signAccessToken } from "./platform-keys";
import { hasScope, type Principal, type Scope, seesAllTenantSessions } from "./principal";
import { ACCESS_TOKEN_TTL_SECONDS } from "../limits";

export { ACCESS_TOKEN_TTL_SECONDS };

export interface IssuedAccessToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

export type ExchangeResult =
  { ok: true; token: IssuedAccessToken } | { ok: false; reason: "not_an_api_key" | "cannot_read_sessions" | "expiring" };

/**
 * Only API key principals may exchange: letting a JWT buy a fresh JWT would let any token
 * renew itself forever. `now` is epoch milliseconds.
 */
export async function exchangeApiKeyForToken(
  keys: Pick<PlatformKeys, "kid" | "alg" | "privateKey">,
  principal: Principal,
  config: Config["auth"],
  now: number,
  ttlSeconds: number = ACCESS_TOKEN_TTL_SECONDS,
): Promise<ExchangeResult> {
  if (principal.via !== "api_key" || principal.keyId === undefined) return { ok: false, reason: "not_an_api_key" };
  // A key that expires sooner gives a token that expires with it (at least a second, which the
  // key's own check on every request covers).
  const ttl = Math.max(1, lifetimeWithin(principal, ttlSeconds, now));
  const accessToken = await signAccessToken(
    keys,
    { tenantId: principal.tenantId, subject: principal.subject, scopes: principal.scopes, ttlSeconds: ttl, keyId: principal.keyId },
    config,
    now,
  );
  return { ok: true, token: { access_token: accessToken, token_type: "Bearer", expires_in: ttl } };
}

/**
 * A stream token for `principal`: its tenant, subject and key, `sessions:read` (and
 * `tenant:admin` when it sees every session of its tenant, which the events route asks), and
 * the stream audience, so that it is refused on every other route. Lives `ttlSeconds` at most,
 * and never past the credential it came from, so a token cannot stretch itself by minting
 * another (a stream token cannot reach this route at all).
 */
export async function issueStreamToken(
  keys: Pick<PlatformKeys, "kid" | "alg" | "privateKey">,
  principal: Principal,
  config: Config["auth"],
  now: number,
  ttlSeconds: number = ACCESS_TOKEN_TTL_SECONDS,
): Promise<ExchangeResult> {
  if (principal.streamOnly || !hasScope(principal, "sessions:read")) return { ok: false, reason: "cannot_read_sessions" };
  const ttl = lifetimeWithin(principal, ttlSeconds, now);
  if (ttl < 1) return { ok: false, reason: "expiring" };
  const scopes: Scope[] = seesAllTenantSessions(principal) ? ["sessions:read", "tenant:admin"] : ["sessions:read"];
  const claims = {
    tenantId: principal.tenantId,
    subject: principal.subject,
    scopes,
    ttlSeconds: ttl,
    streamOnly: true,
    ...(principal.keyId !== undefined ? { keyId: principal.keyId } : {}),
    ...(principal.sourceKeyId !== undefined ? { sourceKeyId: principal.sourceKeyId } : {}),
  };
  const token = await signAccessToken(keys, claims, config, now);
  return { ok: true, token: { access_token: token, token_type: "Bearer", expires_in: ttl } };
}

/** Whole seconds a token may live: `ttlSeconds`, or less when the principal's credential ends sooner. */
function lifetimeWithin(principal: Pick<Principal, "expiresAt">, ttlSeconds: number, now: number): number {
  if (principal.expiresAt === undefined) return ttlSeconds;
  return Math.min(ttlSeconds, Math.floor((principal.expiresAt - now) / 1000));
}
