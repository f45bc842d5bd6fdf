/**
 * The vault's keys (`VAULT_KEYS`: a JSON list of base64url 32-byte keys) and the AES-GCM sealing
 * of secrets under them. The first key seals; every listed key opens, so a key is rotated by
 * putting the new one first and keeping the old one until the re-encryption pass is done. A
 * sealed value names its key by id (a hash of the key, not its place in the list).
 */
import { base64url } from "jose";

/** AES-256: each key is 32 random bytes. */
export const VAULT_KEY_BYTES = 32;
/** A list longer than this is a mistake, not a rotation. */
export const MAX_VAULT_KEYS = 8;
const IV_BYTES = 12;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface VaultKey {
  /** 16 hex digits of the key's SHA-256: stored beside what it sealed. */
  id: string;
  key: CryptoKey;
}

/** The keys, first the one that seals; or why there are none (the log says which, never a key). */
export type VaultKeys = { ok: true; keys: VaultKey[] } | { ok: false; error: string };

export async function loadVaultKeys(text: string | undefined): Promise<VaultKeys> {
  if (!text) return { ok: false, error: "VAULT_KEYS is not set" };
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return { ok: false, error: "VAULT_KEYS is not JSON" };
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_VAULT_KEYS)
    return { ok: false, error: `VAULT_KEYS must be a JSON list of 1 to ${MAX_VAULT_KEYS} keys` };
  const keys: VaultKey[] = [];
  for (const [i, item] of list.entries()) {
    if (typeof item !== "string" || !BASE64URL.test(item)) return { ok: false, error: `VAULT_KEYS[${i}] is not base64url` };
    const bytes = base64url.decode(item);
    if (bytes.byteLength !== VAULT_KEY_BYTES) return { ok: false, error: `VAULT_KEYS[${i}] is not ${VAULT_KEY_BYTES} bytes` };
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
    const id = [...digest.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const key = await crypto.subtle.importKey("raw", bytes as Uint8Array<ArrayBuffer>, "AES-GCM", false, ["encrypt", "decrypt"]);
    if (!keys.some((k) => k.id === id)) keys.push({ id, key });
  }
  return { ok: true, keys };
}

/** A fresh key as VAULT_KEYS lists it (development and tests; production keys come from a secret store). */
export function generateVaultKey(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(VAULT_KEY_BYTES)));
}

export interface Sealed {
  key_id: string;
  /** The 12-byte nonce followed by the ciphertext and its tag. */
  sealed: Uint8Array;
}

/**
 * `plain` sealed under the first key. `context` (the credential's owner and name) is bound in as
 * additional data, so a sealed value copied onto another row does not open there.
 */
export async function seal(keys: readonly VaultKey[], plain: string, context: string): Promise<Sealed> {
  const first = keys[0]!;
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const cipher = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    first.key,
    encoder.encode(plain),
  );
  const sealed = new Uint8Array(IV_BYTES + cipher.byteLength);
  sealed.set(iv);
  sealed.set(new Uint8Array(cipher), IV_BYTES);
  return { key_id: first.id, sealed };
}

/** The plain text, or null when no listed key is the one it names or it does not open (tampered, moved). */
export async function open(keys: readonly VaultKey[], value: Sealed, context: string): Promise<string | null> {
  const key = keys.find((k) => k.id === value.key_id);
  if (!key || value.sealed.byteLength <= IV_BYTES) return null;
  const bytes = new Uint8Array(value.sealed);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: encoder.encode(context) },
      key.key,
      bytes.subarray(IV_BYTES),
    );
    return decoder.decode(plain);
  } catch {
    return null;
  }
}
