/**
 * The platform's own signing key: loaded from `AUTH_SIGNING_KEY`, published as a public JWK at
 * `/.well-known/jwks.json`, and used to sign the platform's access tokens.
 */
import { CompactSign, SignJWT, calculateJwkThumbprint, compactVerify, importJWK, type JWK } from "jose";
import type { Config } from "../config";
import { isValidTenantId, type Scope } from "./principal";

export { generateSigningKey } from "./dev-signing-key";

export type SigningAlg = "ES256" | "EdDSA";

/** What a verifier needs of the platform key. */
export interface PlatformPublicKey {
  kid: string;
  alg: SigningAlg;
  publicKey: CryptoKey;
}

export interface PlatformKeys extends PlatformPublicKey {
  privateKey: CryptoKey;
  /** Public members only, built member by member so a private one can never slip through. */
  publicJwk: JWK;
}

export type PlatformKeysResult = { ok: true; keys: PlatformKeys } | { ok: false; error: string };

/** A kid travels in token headers and logs: keep it short and plain. */
const KID_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** `sub` becomes a session's `created_by`; long enough for any IdP's subject ids. */
export const MAX_SUBJECT_LENGTH = 256;
/** Platform tokens are access tokens, never long-lived credentials. */
export const MAX_ACCESS_TOKEN_TTL_SECONDS = 24 * 60 * 60;
/** Claim carrying the API key an exchanged token came from, so callers may re-check revocation. */
export const KEY_ID_CLAIM = "key_id";
/** The issue instant in milliseconds (`iat` has whole seconds), so a revocation cut-off is exact. */
export const ISSUED_AT_MS_CLAIM = "iat_ms";
/** The `metadata` a backend gave an end-user token, kept for `GET /v1/me`. */
export const END_USER_METADATA_CLAIM = "end_user_metadata";
/** The API key that minted an end user's token, whose revocation ends the token too. */
export const SOURCE_KEY_CLAIM = "source_key_id";

/**
 * The audience of stream tokens: the platform's own with `:events`. A token of this audience is
 * accepted on the events route only, and the events route takes no other token in its URL, so a
 * token copied from a URL watches sessions and does nothing else.
 */
export function streamAudience(audience: string): string {
  return `${audience}:events`;
}

/** Parses and imports `AUTH_SIGNING_KEY`. Every failure names the variable and what is wrong. */
export async function loadPlatformKeys(signingKeyText: string | undefined): Promise<PlatformKeysResult> {
  if (!signingKeyText) {
    return fail("is not set; the platform cannot issue or verify its own tokens (generate one for development)");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(signingKeyText);
  } catch {
    return fail("is not valid JSON; expected a private JWK");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return fail("must be a JSON object (a JWK)");
  const jwk = parsed as Record<string, unknown>;

  const alg = algorithmOf(jwk);
  if (!alg) return fail("must be an EC P-256 (ES256) or OKP Ed25519 (EdDSA) key");
  if (jwk.alg !== undefined && !(jwk.alg === alg || (alg === "EdDSA" && jwk.alg === "Ed25519"))) {
    return fail(`declares alg ${JSON.stringify(jwk.alg)}, which does not match its key type (${alg})`);
  }
  if (!isNonEmptyString(jwk.d)) return fail('is not a private key (no "d" member)');
  if (!isNonEmptyString(jwk.x) || (alg === "ES256" && !isNonEmptyString(jwk.y))) {
    return fail("lacks its public coordinates");
  }

  const publicMembers: JWK =
    alg === "ES256" ? { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y as string } : { kty: "OKP", crv: "Ed25519", x: jwk.x };
  let kid: string;
  if (jwk.kid === undefined) kid = await calculateJwkThumbprint(publicMembers, "sha256");
  else if (typeof jwk.kid === "string" && KID_PATTERN.test(jwk.kid)) kid = jwk.kid;
  else return fail("has a kid that is not 1-128 characters of A-Z a-z 0-9 _ . : -");

  let privateKey: CryptoKey;
  let publicKey: CryptoKey;
  try {
    privateKey = (await importJWK({ ...publicMembers, d: jwk.d }, alg)) as CryptoKey;
    publicKey = (await importJWK(publicMembers, alg)) as CryptoKey;
  } catch {
    return fail("could not be imported; check its members");
  }
  // A private scalar paired with someone else's public point would sign tokens nobody can
  // verify; find out at start-up rather than on the first request.
  if (!(await pairMatches(alg, privateKey, publicKey))) {
    return fail("has a private part that does not match its public part");
  }

  const publicJwk: JWK = { ...publicMembers, kid, alg, use: "sig" };
  return { ok: true, keys: { kid, alg, privateKey, publicKey, publicJwk } };
}

/** The body of `/.well-known/jwks.json`. */
export function publicJwks(keys: Pick<PlatformKeys, "publicJwk">): { keys: JWK[] } {
  return { keys: [{ ...keys.publicJwk }] };
}

export interface AccessTokenClaims {
  tenantId: string;
  subject: string;
  scopes: readonly Scope[];
  ttlSeconds: number;
  /** The API key the token stands in for, when it was exchanged from one. */
  keyId?: string;
  /** A stream token: the stream audience instead of the platform's. */
  streamOnly?: boolean;
  /** An end-user token's metadata, as its backend gave it. */
  endUserMetadata?: Record<string, string>;
  /** The API key that minted an end-user token. */
  sourceKeyId?: string;
}

/**
 * Signs a platform access token. `now` is epoch milliseconds. Invalid input is a programming
 * error (the caller holds an authenticated principal), so it throws rather than returns.
 */
export async function signAccessToken(
  keys: Pick<PlatformKeys, "kid" | "alg" | "privateKey">,
  claims: AccessTokenClaims,
  config: Config["auth"],
  now: number,
): Promise<string> {
  if (!isValidTenantId(claims.tenantId)) throw new RangeError("signAccessToken: invalid tenant id");
  if (!claims.subject || claims.subject.length > MAX_SUBJECT_LENGTH) throw new RangeError("signAccessToken: invalid subject");
  if (!Number.isInteger(claims.ttlSeconds) || claims.ttlSeconds < 1 || claims.ttlSeconds > MAX_ACCESS_TOKEN_TTL_SECONDS) {
    throw new RangeError("signAccessToken: ttlSeconds out of range");
  }
  const issuedAt = Math.floor(now / 1000);
  const payload: Record<string, unknown> = { [config.tenantClaim]: claims.tenantId, scope: claims.scopes.join(" ") };
  if (claims.keyId !== undefined) payload[KEY_ID_CLAIM] = claims.keyId;
  if (claims.endUserMetadata !== undefined) payload[END_USER_METADATA_CLAIM] = claims.endUserMetadata;
  if (claims.sourceKeyId !== undefined) payload[SOURCE_KEY_CLAIM] = claims.sourceKeyId;
  payload[ISSUED_AT_MS_CLAIM] = now;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: keys.alg, kid: keys.kid, typ: "JWT" })
    .setIssuer(config.issuer)
    .setAudience(claims.streamOnly ? streamAudience(config.audience) : config.audience)
    .setSubject(claims.subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + claims.ttlSeconds)
    .setJti(crypto.randomUUID())
    .sign(keys.privateKey);
}

function algorithmOf(jwk: Record<string, unknown>): SigningAlg | null {
  if (jwk.kty === "EC" && jwk.crv === "P-256") return "ES256";
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") return "EdDSA";
  return null;
}

async function pairMatches(alg: SigningAlg, privateKey: CryptoKey, publicKey: CryptoKey): Promise<boolean> {
  try {
    const probe = new TextEncoder().encode("agent-platform signing key self-test");
    const jws = await new CompactSign(probe).setProtectedHeader({ alg }).sign(privateKey);
    await compactVerify(jws, publicKey, { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function fail(problem: string): PlatformKeysResult {
  return { ok: false, error: `AUTH_SIGNING_KEY ${problem}` };
}
