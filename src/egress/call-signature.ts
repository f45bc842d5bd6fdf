/**
 * Signing of tenant calls (a webhook tool's calls and status webhooks). The receiver recomputes
 * HMAC-SHA256(secret, `${timestamp}.${body}`), accepts the call when any `v1=` signature of the
 * header matches, and refuses timestamps too far from its clock, so a captured request cannot be
 * replayed later. During a secret rotation the header carries one signature per valid secret.
 */
import { toHex } from "../shared/hex";

export const SIGNATURE_HEADER = "X-Webhook-Signature";
export const TIMESTAMP_HEADER = "X-Webhook-Timestamp";
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Receivers should refuse a timestamp older or newer than this. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `v1=<hex>` per secret, newest first, joined by commas: `v1=<new>,v1=<old>` during a rotation. */
export async function signCallBody(secrets: readonly string[], timestamp: number, body: string): Promise<string> {
  if (secrets.length === 0) throw new Error("no webhook secret to sign with");
  const signatures = await Promise.all(secrets.map((secret) => hmacHex(secret, `${timestamp}.${body}`)));
  return signatures.map((hex) => `v1=${hex}`).join(",");
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message));
  return toHex(new Uint8Array(mac));
}
