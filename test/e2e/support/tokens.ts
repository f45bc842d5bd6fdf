/**
 * Platform JWTs minted in Node from the same private key the process under test was given,
 * with the issuer and audience of wrangler.json, as a tenant's identity provider would.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importJWK, type JWK, SignJWT } from "jose";
import type { Scope } from "../../../src/auth/principal";
import { PROJECT_ROOT } from "./environment";

/** The platform's own scopes, so a token can carry any scope it grants. */
export type { Scope };

/** Long enough for the slowest scenario; tokens are minted per test anyway. */
const TOKEN_TTL_SECONDS = 60 * 60;
const TENANT_CLAIM = "tenant_id";

interface AuthVars {
  issuer: string;
  audience: string;
}

function authVars(): AuthVars {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, "wrangler.json"), "utf8")) as { vars?: Record<string, string> };
  const issuer = config.vars?.AUTH_ISSUER;
  const audience = config.vars?.AUTH_AUDIENCE;
  if (!issuer || !audience) throw new Error("wrangler.json must set vars.AUTH_ISSUER and vars.AUTH_AUDIENCE");
  return { issuer, audience };
}

export interface Identity {
  tenantId: string;
  subject: string;
  scopes: Scope[];
  /** How long the token lives; an hour by default. */
  ttlSeconds?: number;
}

/** Signs tokens with `signingKey` (a private JWK as JSON text, with `kid` and `alg`). */
export async function tokenMinter(signingKey: string): Promise<(identity: Identity) => Promise<string>> {
  const jwk = JSON.parse(signingKey) as JWK & { kid: string; alg: string };
  const key = await importJWK(jwk, jwk.alg);
  const { issuer, audience } = authVars();
  return (identity) =>
    new SignJWT({ [TENANT_CLAIM]: identity.tenantId, scope: identity.scopes.join(" ") })
      .setProtectedHeader({ alg: jwk.alg, kid: jwk.kid, typ: "JWT" })
      .setIssuer(issuer)
      .setAudience(audience)
      .setSubject(identity.subject)
      .setIssuedAt()
      .setExpirationTime(`${identity.ttlSeconds ?? TOKEN_TTL_SECONDS}s`)
      .sign(key);
}
