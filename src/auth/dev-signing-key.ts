/**
 * Creates a development signing key for `AUTH_SIGNING_KEY`, and a development
 * `AUTH_API_KEY_SECRET`. Imports only `jose`, so Node scripts can load this file directly as
 * well as the Worker.
 */
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair } from "jose";

/** 256 bits: an API key's tag is only as strong as the secret it is made with. */
export const MIN_API_KEY_SECRET_BYTES = 32;

/** A fresh `AUTH_API_KEY_SECRET`: 32 random bytes, base64url. */
export function generateApiKeySecret(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(MIN_API_KEY_SECRET_BYTES)));
}

/** A fresh ES256 private JWK with `kid` (its RFC 7638 thumbprint), `alg` and `use`, as JSON text. */
export async function generateSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = await exportJWK(privateKey);
  // The thumbprint covers only the public members, so it is safe to publish as the kid.
  const kid = await calculateJwkThumbprint(jwk, "sha256");
  return JSON.stringify({ ...jwk, kid, alg: "ES256", use: "sig" });
}
