/**
 * Mints platform JWTs for tests with the signing key the test run configures as
 * `AUTH_SIGNING_KEY` (generated fresh by the global setup), and hands out fresh tenant ids.
 */
import { env } from "cloudflare:test";
import { importJWK, SignJWT, type JWK } from "jose";
import { inject } from "vitest";
import type { Scope } from "../../src/auth/principal";

export interface TokenOptions {
  tenantId: string;
  subject?: string;
  scopes?: readonly Scope[];
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  /** Extra or replacing claims (not `iss`, `aud`, `sub`, `iat`, `exp`: see the options above and below). */
  claims?: Record<string, unknown>;
  issuer?: string;
  audience?: string;
}

let signingKey: Promise<{ key: CryptoKey; kid: string }> | undefined;

function loadKey(): Promise<{ key: CryptoKey; kid: string }> {
  signingKey ??= (async () => {
    const jwk = JSON.parse(inject("signingKey")) as JWK & { kid: string };
    return { key: (await importJWK(jwk, "ES256")) as CryptoKey, kid: jwk.kid };
  })();
  return signingKey;
}

export async function platformToken(options: TokenOptions): Promise<string> {
  const { key, kid } = await loadKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tenant_id: options.tenantId, scope: (options.scopes ?? []).join(" "), ...options.claims })
    .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
    .setIssuer(options.issuer ?? env.AUTH_ISSUER ?? "https://agents.local")
    .setAudience(options.audience ?? env.AUTH_AUDIENCE ?? "agent-platform")
    .setSubject(options.subject ?? "user-1")
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 300))
    .sign(key);
}

/** `Authorization` header for a platform JWT. */
export async function bearer(options: TokenOptions): Promise<{ Authorization: string }> {
  return { Authorization: `Bearer ${await platformToken(options)}` };
}

let counter = 0;
/** A tenant id no other test uses, so tests never share limits, keys or rate budgets. */
export function freshTenant(prefix = "t"): string {
  counter += 1;
  return `${prefix}-${counter}-${crypto.randomUUID().slice(0, 8)}`;
}
