/**
 * API keys as tests need them beside the ones the routes issue: tagged with the gateway's own
 * `AUTH_API_KEY_SECRET` (as the global setup configured it), in the legacy format that carries
 * no tag, or tagged with a secret the platform does not hold (a forgery).
 */
import { base64url } from "jose";
import { inject } from "vitest";
import { loadApiKeySecret } from "../../src/auth/api-key-secret";
import { generateApiKeySecret } from "../../src/auth/dev-signing-key";
import { generateApiKey, generateKeyId, hashApiKeySecret, type GeneratedApiKey } from "../../src/auth/api-keys";

let platformSecret: Promise<CryptoKey> | undefined;

async function load(text: string): Promise<CryptoKey> {
  const loaded = await loadApiKeySecret(text);
  if (!loaded.ok) throw new Error(loaded.error);
  return loaded.key;
}

/** The secret the gateway under test tags its keys with. */
export function platformApiKeySecret(): Promise<CryptoKey> {
  platformSecret ??= load(inject("apiKeySecret"));
  return platformSecret;
}

/** A key as the platform issues it (stored nowhere until the caller stores it). */
export async function issuedKey(tenantId: string): Promise<GeneratedApiKey> {
  return generateApiKey(tenantId, await platformApiKeySecret());
}

/** A key in the shape of an issued one, tagged under a secret the platform does not hold. */
export async function forgedKey(tenantId: string): Promise<GeneratedApiKey> {
  return generateApiKey(tenantId, await load(generateApiKeySecret()));
}

/** A key in the format issued before keys carried a tag: `ak_<tenant>.<key_id>.<secret>`. */
export async function legacyKey(tenantId: string): Promise<GeneratedApiKey> {
  const keyId = generateKeyId();
  const secret = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  return { keyId, plaintext: `ak_${base64url.encode(tenantId)}.${keyId}.${secret}`, hash: await hashApiKeySecret(secret) };
}
