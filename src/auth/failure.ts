/**
 * Why authentication failed. These reasons are for logs and tests only: the wire always
 * gets the same generic 401, so a caller learns nothing about which check it tripped.
 */
import type { Principal } from "./principal";

export const AUTH_FAILURES = [
  // Authorization header
  "missing_credentials",
  "malformed_authorization",
  "credential_too_large",
  // an API key sent in a URL (?access_token=), where only a JWT may go
  "api_key_in_url",
  // a token in a URL that is not a stream token, or a stream token on another route
  "url_token_not_for_streams",
  "stream_token_elsewhere",
  // JWT shape and algorithm
  "malformed_token",
  "alg_not_allowed",
  // JWT key resolution
  "issuer_unknown",
  "platform_key_unavailable",
  "external_not_configured",
  "jwks_unavailable",
  "jwks_key_not_found",
  "jwks_key_ambiguous",
  "kid_mismatch",
  // JWT signature and claims
  "bad_signature",
  "expired",
  "not_yet_valid",
  "no_expiry",
  "lifetime_too_long",
  "iss_mismatch",
  "aud_mismatch",
  "claim_invalid",
  "no_tenant_claim",
  "bad_tenant_id",
  "no_subject",
  "subject_reserved",
  "key_claims_mismatch",
  "verification_error",
  // API keys
  "malformed_api_key",
  // a tagged key: its tag is not the platform's, or the platform's secret is not configured
  "key_tag_mismatch",
  "api_key_secret_unavailable",
  // a legacy (untagged) key: refused for a tenant the registry does not know, or when turned off
  "legacy_key_tenant_unknown",
  "legacy_keys_off",
  "key_store_unavailable",
  "key_unknown",
  "key_unknown_cached",
  "address_blocked",
  "key_secret_mismatch",
  "key_revoked",
  "key_expired",
] as const;

export type AuthFailure = (typeof AUTH_FAILURES)[number];

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: AuthFailure };

export function authOk(principal: Principal): AuthResult {
  return { ok: true, principal };
}

export function authFail(reason: AuthFailure): AuthResult {
  return { ok: false, reason };
}
