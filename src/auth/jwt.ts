/**
 * JWT verification for the platform's own tokens and an external identity provider's. Pure
 * apart from key resolution (the external JWKS getter); `now` is epoch milliseconds.
 */
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { Config } from "../config";
import { KEY_ID_PATTERN } from "./api-keys";
import { authFail, authOk, type AuthFailure, type AuthResult } from "./failure";
import {
  END_USER_METADATA_CLAIM,
  ISSUED_AT_MS_CLAIM,
  KEY_ID_CLAIM,
  SOURCE_KEY_CLAIM,
  MAX_SUBJECT_LENGTH,
  type PlatformPublicKey,
  streamAudience,
} from "./platform-keys";
import {
  API_KEY_SUBJECT_PREFIX,
  END_USER_SCOPES,
  END_USER_SUBJECT_PATTERN,
  END_USER_SUBJECT_PREFIX,
  isValidTenantId,
  parseScopes,
  type Principal,
  type Scope,
} from "./principal";
import { VerifiedTokens } from "./verified-tokens";

/**
 * Asymmetric algorithms only. Refusing `none` and every HS* closes the two classic holes:
 * unsigned tokens, and an HMAC "signed" with the public key (which anyone can fetch from the
 * JWKS). RSA is accepted for external providers that only offer it (jose enforces 2048-bit
 * keys); ES512 and RS384/512 are left out because no provider we target needs them.
 */
export const ALLOWED_ALGORITHMS: readonly string[] = ["ES256", "ES384", "EdDSA", "RS256", "PS256"];
/** Far above any real token (a few hundred bytes to a few KiB), low enough to bound parsing work. */
export const MAX_JWT_BYTES = 16 * 1024;
/** Absorbs clock skew between the issuer and the edge without meaningfully extending a token's life. */
export const CLOCK_TOLERANCE_SECONDS = 30;
/** Subjects with this prefix name API keys; only the platform may issue tokens for them (the rule lives with the principal's). */
export { API_KEY_SUBJECT_PREFIX };

/**
 * Three base64url segments: JWS compact serialization; JWE (five segments) is refused. The
 * signature may be empty here so an unsigned `alg: none` token is named for what it is.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface JwtDeps {
  config: Config["auth"];
  /** Null when `AUTH_SIGNING_KEY` is not configured. */
  platformKey: PlatformPublicKey | null;
  /** `createRemoteJWKSet(new URL(AUTH_JWKS_URL))`, created once by the caller. */
  externalJwks?: JWTVerifyGetKey;
}

export type Route = "platform" | "external";

interface Verifier {
  route: Route;
  issuer: string;
  key: CryptoKey | JWTVerifyGetKey;
  algorithms: string[];
  /** Any of these (the platform also issues stream tokens, of their own audience). */
  audience: string[];
}

/** Tokens verified in this isolate, per auth configuration (one in production; tests use several). */
const verifiedByConfig = new WeakMap<Config["auth"], VerifiedTokens>();

/**
 * Verifies a JWT, or finds it among the tokens this isolate verified before with the same
 * configuration (verified-tokens.ts): a client sending one token many times pays for the
 * signature check once.
 */
export async function verifyJwt(token: string, deps: JwtDeps, now: number): Promise<AuthResult> {
  let verified = verifiedByConfig.get(deps.config);
  if (!verified) {
    verified = new VerifiedTokens();
    verifiedByConfig.set(deps.config, verified);
  }
  const kept = verified.get(token, now);
  if (kept) return authOk(kept);
  const result = await verifyJwtSignature(token, deps, now);
  if (result.ok) verified.put(token, result.principal, now);
  return result;
}

async function verifyJwtSignature(token: string, deps: JwtDeps, now: number): Promise<AuthResult> {
  if (token.length > MAX_JWT_BYTES) return authFail("credential_too_large");
  if (!COMPACT_JWS.test(token)) return authFail("malformed_token");

  let alg: unknown;
  let kid: unknown;
  let unverifiedIssuer: unknown;
  try {
    ({ alg, kid } = decodeProtectedHeader(token));
    unverifiedIssuer = decodeJwt(token).iss;
  } catch {
    return authFail("malformed_token");
  }
  // jose's `algorithms` option enforces this again per issuer; refusing here first means no key
  // is ever resolved (or JWKS fetched) for a token whose algorithm could never pass.
  if (typeof alg !== "string" || !ALLOWED_ALGORITHMS.includes(alg)) return authFail("alg_not_allowed");

  const chosen = chooseVerifier(unverifiedIssuer, kid, deps);
  if (!chosen.ok) return authFail(chosen.reason);
  const verifier = chosen.verifier;

  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, verifier.key, {
      algorithms: verifier.algorithms,
      issuer: verifier.issuer,
      audience: verifier.audience,
      requiredClaims: ["exp", "sub"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(now),
    }));
  } catch (error) {
    return authFail(reasonForError(error, verifier.route));
  }
  if (exceedsMaxLifetime(payload, now, deps.config.maxTokenAgeSeconds)) return authFail("lifetime_too_long");
  return principalFromClaims(payload, verifier.route, deps.config);
}

/**
 * Whether a verified token lives longer than `maxSeconds`: from now to `exp` (with the clock
 * tolerance, so an issuer whose clock runs a little ahead is not refused for it), or from `iat`
 * to `exp` when the token says when it was issued. A token valid for years is a standing
 * credential whoever leaks it; bounding both means neither claim alone can stretch a lifetime.
 * Pure; `now` is epoch milliseconds and jose has already checked that `exp` and `iat` are numbers.
 */
export function exceedsMaxLifetime(payload: Pick<JWTPayload, "exp" | "iat">, now: number, maxSeconds: number): boolean {
  const { exp, iat } = payload;
  if (typeof exp !== "number") return true;
  if (exp - Math.floor(now / 1000) > maxSeconds + CLOCK_TOLERANCE_SECONDS) return true;
  return typeof iat === "number" && exp - iat > maxSeconds;
}

type Choice = { ok: true; verifier: Verifier } | { ok: false; reason: AuthFailure };

/**
 * Picks the key by the *unverified* issuer. That is safe because the issuer is then checked
 * again against the verified payload, and each issuer only ever gets its own key.
 */
function chooseVerifier(iss: unknown, kid: unknown, deps: JwtDeps): Choice {
  const { config } = deps;
  if (typeof iss !== "string") return { ok: false, reason: "issuer_unknown" };
  if (iss === config.issuer) {
    const platform = deps.platformKey;
    if (!platform) return { ok: false, reason: "platform_key_unavailable" };
    if (kid !== undefined && kid !== platform.kid) return { ok: false, reason: "kid_mismatch" };
    return {
      ok: true,
      verifier: {
        route: "platform",
        issuer: iss,
        key: platform.publicKey,
        algorithms: [platform.alg],
        audience: [config.audience, streamAudience(config.audience)],
      },
    };
  }
  if (config.externalIssuer !== undefined && iss === config.externalIssuer) {
    // Never verify an external token without an audience: it could be meant for another service.
    if (!deps.externalJwks || !config.externalAudience) return { ok: false, reason: "external_not_configured" };
    return {
      ok: true,
      verifier: {
        route: "external",
        issuer: iss,
        key: deps.externalJwks,
        algorithms: [...ALLOWED_ALGORITHMS],
        audience: [config.externalAudience],
      },
    };
  }
  return { ok: false, reason: "issuer_unknown" };
}

function principalFromClaims(payload: JWTPayload, route: Route, config: Config["auth"]): AuthResult {
  const subject = payload.sub;
  if (typeof subject !== "string" || subject.length === 0 || subject.length > MAX_SUBJECT_LENGTH) {
    return authFail("no_subject");
  }
  // An external provider must not be able to act as one of the tenant's API keys.
  if (route === "external" && subject.startsWith(API_KEY_SUBJECT_PREFIX)) return authFail("subject_reserved");
  // Nor as one of its end users, whose rules key on the prefix.
  if (route === "external" && subject.startsWith(END_USER_SUBJECT_PREFIX)) return authFail("subject_reserved");

  const tenantId = payload[config.tenantClaim];
  if (tenantId === undefined || tenantId === null || tenantId === "") return authFail("no_tenant_claim");
  if (!isValidTenantId(tenantId)) return authFail("bad_tenant_id");

  const scopes = grantableScopes(parseScopes(payload.scope !== undefined ? payload.scope : payload.scp), route, config);
  const principal: Principal = { tenantId, subject, scopes, via: "jwt" };
  if (typeof payload.exp === "number") principal.expiresAt = payload.exp * 1000;
  if (route === "platform" && subject.startsWith(END_USER_SUBJECT_PREFIX)) {
    const refused = asEndUser(principal, payload);
    if (refused !== null) return authFail(refused);
  }
  if (route === "platform") {
    // Narrower wins: a token that names the stream audience at all is a stream token.
    const audiences = typeof payload.aud === "string" ? [payload.aud] : (payload.aud ?? []);
    if (audiences.includes(streamAudience(config.audience))) principal.streamOnly = true;
    const keyId = payload[KEY_ID_CLAIM];
    if (keyId !== undefined || subject.startsWith(API_KEY_SUBJECT_PREFIX)) {
      // A token exchanged from an API key stands for exactly that key: its subject and its
      // `key_id` must name the same one, or the revocation check would look at one key while the
      // token acts as another (or, without `key_id`, at none).
      if (typeof keyId !== "string" || !KEY_ID_PATTERN.test(keyId) || subject !== API_KEY_SUBJECT_PREFIX + keyId) {
        return authFail("key_claims_mismatch");
      }
      principal.keyId = keyId;
    }
  }
  return authOk(principal);
}

/**
 * Makes `principal` the end user its platform token names, or says why the token cannot be one.
 * An end user's token never carries more than an end user may hold, whatever it says, names no
 * key it stands for (only the key that minted it), and always says when it was issued: its
 * revocation compares that instant.
 */
function asEndUser(principal: Principal, payload: JWTPayload): AuthFailure | null {
  const endUser = principal.subject.slice(END_USER_SUBJECT_PREFIX.length);
  if (!END_USER_SUBJECT_PATTERN.test(endUser) || payload[KEY_ID_CLAIM] !== undefined || typeof payload.iat !== "number")
    return "claim_invalid";
  principal.endUser = endUser;
  principal.issuedAt = issuedAtMs(payload.iat, payload[ISSUED_AT_MS_CLAIM]);
  principal.scopes = principal.scopes.filter((scope) => END_USER_SCOPES.includes(scope));
  const sourceKey = payload[SOURCE_KEY_CLAIM];
  if (sourceKey !== undefined) {
    if (typeof sourceKey !== "string" || !KEY_ID_PATTERN.test(sourceKey)) return "claim_invalid";
    principal.sourceKeyId = sourceKey;
  }
  const metadata = payload[END_USER_METADATA_CLAIM];
  if (metadata !== undefined) {
    if (
      typeof metadata !== "object" ||
      metadata === null ||
      Array.isArray(metadata) ||
      !Object.values(metadata).every((value) => typeof value === "string")
    )
      return "claim_invalid";
    principal.endUserMetadata = metadata as Record<string, string>;
  }
  return null;
}

/**
 * The issue instant in ms: the platform's own millisecond claim when it is within the second
 * `iat` names (a revocation in the same second as an issue tells them apart), else `iat` itself.
 */
function issuedAtMs(iat: number, ms: unknown): number {
  const floor = iat * 1000;
  return typeof ms === "number" && Number.isInteger(ms) && ms >= floor && ms < floor + 1000 ? ms : floor;
}

/**
 * The scopes an issuer may grant. `platform:admin` reaches every tenant, so it comes only from
 * the platform's own issuer unless the operator says the external provider is trusted with it:
 * a tenant-facing identity provider is one misassigned group away from handing it out. It is
 * dropped rather than the token refused, like any other scope the platform does not take from
 * that issuer, so the holder keeps the tenant scopes it was rightly given.
 */
export function grantableScopes(scopes: Scope[], route: Route, config: Pick<Config["auth"], "externalPlatformAdmin">): Scope[] {
  if (route === "platform" || config.externalPlatformAdmin) return scopes;
  return scopes.filter((scope) => scope !== "platform:admin");
}

/** Every jose error code, mapped in one place; adding a code to jose breaks the build here. */
function reasonForError(error: unknown, route: Route): AuthFailure {
  // jose lets network failures of the remote JWKS surface as plain fetch errors.
  if (!(error instanceof errors.JOSEError)) return route === "external" ? "jwks_unavailable" : "verification_error";
  const code = error.code as errors.JOSEErrorCode;
  switch (code) {
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "alg_not_allowed";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "bad_signature";
    case "ERR_JWT_EXPIRED":
      return "expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return reasonForClaim(error as errors.JWTClaimValidationFailed);
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "jwks_key_not_found";
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "jwks_key_ambiguous";
    // Remote JWKS: bad HTTP status or body (generic), timeout, or a set or key that is invalid.
    case "ERR_JOSE_GENERIC":
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
    case "ERR_JWK_INVALID":
      return route === "external" ? "jwks_unavailable" : "verification_error";
    // Structure: bad segments, unknown `crit`, unencoded payloads, or JWE codes that a JWS
    // verifier should never produce.
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
    case "ERR_JOSE_NOT_SUPPORTED":
    case "ERR_JWE_INVALID":
    case "ERR_JWE_DECRYPTION_FAILED":
      return "malformed_token";
    default:
      return unknownCode(code);
  }
}

function reasonForClaim(error: errors.JWTClaimValidationFailed): AuthFailure {
  switch (error.claim) {
    case "iss":
      return "iss_mismatch";
    case "aud":
      return "aud_mismatch";
    case "sub":
      return "no_subject";
    case "nbf":
      return error.reason === "check_failed" ? "not_yet_valid" : "claim_invalid";
    case "exp":
      return error.reason === "missing" ? "no_expiry" : "claim_invalid";
    default:
      return "claim_invalid";
  }
}

function unknownCode(code: never): AuthFailure {
  void code;
  return "verification_error";
}
