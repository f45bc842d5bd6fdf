/** Shared fixtures for the auth tests: a config, real keys generated per test file, a fixed clock. */
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWTPayload, type JWTHeaderParameters } from "jose";
import type { Config } from "../../src/config";
import { generateSigningKey, loadPlatformKeys, type PlatformKeys } from "../../src/auth/platform-keys";

export const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
export const NOW_S = Math.floor(NOW / 1000);

export const AUTH_CONFIG: Config["auth"] = {
  issuer: "https://agents.test",
  audience: "agent-platform",
  signingKey: undefined,
  apiKeySecret: undefined,
  legacyApiKeys: true,
  jwksUrl: undefined,
  externalIssuer: "https://idp.test",
  externalAudience: "agents-api",
  tenantClaim: "tenant_id",
  externalPlatformAdmin: false,
  maxTokenAgeSeconds: 24 * 60 * 60,
  failuresPerMinute: 60,
};

export async function makePlatformKeys(text?: string): Promise<PlatformKeys> {
  const loaded = await loadPlatformKeys(text ?? (await generateSigningKey()));
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.keys;
}

export interface ExternalIdp {
  kid: string;
  privateKey: CryptoKey;
  jwks: ReturnType<typeof createLocalJWKSet>;
}

export async function makeExternalIdp(alg: "ES384" | "RS256" | "EdDSA" = "ES384"): Promise<ExternalIdp> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `idp-${alg.toLowerCase()}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, privateKey, jwks: createLocalJWKSet({ keys: [jwk] }) };
}

export interface TokenSpec {
  claims?: JWTPayload;
  header?: Partial<JWTHeaderParameters>;
  /** Claims to delete from the defaults. */
  omit?: string[];
}

/** Signs a token with explicit claims, defaulting to a valid platform token at NOW. */
export async function signToken(key: CryptoKey, alg: string, spec: TokenSpec = {}): Promise<string> {
  const claims: JWTPayload = {
    iss: AUTH_CONFIG.issuer,
    aud: AUTH_CONFIG.audience,
    sub: "user-1",
    tenant_id: "acme",
    scope: "sessions:read sessions:write",
    iat: NOW_S,
    exp: NOW_S + 600,
    ...spec.claims,
  };
  for (const name of spec.omit ?? []) delete claims[name];
  return new SignJWT(claims).setProtectedHeader({ alg, ...spec.header }).sign(key);
}

export function b64json(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Replaces one character in the middle of a segment, so the change is never in padding bits. */
export function tamperSegment(token: string, index: number): string {
  const parts = token.split(".");
  const segment = parts[index] ?? "";
  const at = Math.floor(segment.length / 2);
  const replacement = segment[at] === "A" ? "B" : "A";
  parts[index] = segment.slice(0, at) + replacement + segment.slice(at + 1);
  return parts.join(".");
}
