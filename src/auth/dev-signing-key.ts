/**
 * Creates a development signing key for `AUTH_SIGNING_KEY`. Imports only `jose`, so Node
 * scripts can load this file directly as well as the Worker.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

/** A fresh ES256 private JWK with `kid` (its RFC 7638 thumbprint), `alg` and `use`, as JSON text. */
export async function generateSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  // The thumbprint covers only the public members, so it is safe to publish as the kid.
  const kid = await calculateJwkThumbprint(jwk, "sha256");
  return JSON.stringify({ ...jwk, kid, alg: "ES256", use: "sig" });
}
