/**
 * The exchange behind `POST /v1/auth/token`: an API key principal becomes a short-lived platform
 * JWT with the same tenant, subject and scopes (for browsers and `?access_token=` on WebSockets,
 * where an API key must never appear).
 */
import type { Config } from "../config";
import type { PlatformKeys } from "./platform-keys";
import { signAccessToken } from "./platform-keys";
import type { Principal } from "./principal";
import { ACCESS_TOKEN_TTL_SECONDS } from "../limits";

export { ACCESS_TOKEN_TTL_SECONDS };

export interface IssuedAccessToken {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

export type ExchangeResult = { ok: true; token: IssuedAccessToken } | { ok: false; reason: "not_an_api_key" };

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
  const accessToken = await signAccessToken(
    keys,
    { tenantId: principal.tenantId, subject: principal.subject, scopes: principal.scopes, ttlSeconds, keyId: principal.keyId },
    config,
    now,
  );
  return { ok: true, token: { access_token: accessToken, token_type: "Bearer", expires_in: ttlSeconds } };
}
