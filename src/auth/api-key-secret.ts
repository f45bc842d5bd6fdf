/**
 * The platform's API-key secret (`AUTH_API_KEY_SECRET`): the HMAC key every issued API key
 * carries a tag of, so a key the platform did not issue is refused before any I/O. Loaded like
 * the signing key (platform-keys.ts). Development secrets come from dev-signing-key.ts.
 */
import { base64url } from "jose";
import { MIN_API_KEY_SECRET_BYTES } from "./dev-signing-key";

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const encoder = new TextEncoder();

/** What a caller is told while `AUTH_API_KEY_SECRET` is missing or invalid (the log says which). */
export const API_KEY_SECRET_MISSING =
  "The platform's API-key secret (AUTH_API_KEY_SECRET) is not configured: API keys can be neither issued nor verified.";

export type ApiKeySecretResult = { ok: true; key: CryptoKey } | { ok: false; error: string };

/** Parses and imports `AUTH_API_KEY_SECRET`. Every failure names the variable and what is wrong. */
export async function loadApiKeySecret(text: string | undefined): Promise<ApiKeySecretResult> {
  if (!text) return fail("is not set; API keys can be neither issued nor verified (generate one for development)");
  if (!BASE64URL.test(text)) return fail("must be base64url (A-Z a-z 0-9 - _, no padding)");
  const bytes = base64url.decode(text);
  if (bytes.byteLength < MIN_API_KEY_SECRET_BYTES) return fail(`must hold at least ${MIN_API_KEY_SECRET_BYTES} random bytes`);
  const key = await crypto.subtle.importKey("raw", bytes as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return { ok: true, key };
}

/** The tag of a key's body (everything before its last `.`): HMAC-SHA256, base64url (43 characters). */
export async function apiKeyTag(key: CryptoKey, body: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(body))));
}

/** Whether `tag` is the body's tag; the two are compared without an early exit. */
export async function apiKeyTagMatches(key: CryptoKey, body: string, tag: string): Promise<boolean> {
  const expected = encoder.encode(await apiKeyTag(key, body));
  const presented = encoder.encode(tag);
  return expected.byteLength === presented.byteLength && crypto.subtle.timingSafeEqual(expected, presented);
}

function fail(problem: string): ApiKeySecretResult {
  return { ok: false, error: `AUTH_API_KEY_SECRET ${problem}` };
}
