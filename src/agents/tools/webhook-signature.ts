/**
 * Signing of webhook tool calls. The tenant's backend recomputes
 * HMAC-SHA256(secret, `${timestamp}.${body}`) and compares it with the signature header,
 * and refuses timestamps too far from its clock, so a captured request cannot be replayed later.
 */
import { toHex } from "../../hex";

export const SIGNATURE_HEADER = "X-Webhook-Signature";
export const TIMESTAMP_HEADER = "X-Webhook-Timestamp";
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/** Receivers should refuse a timestamp older or newer than this. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export async function signWebhookBody(secret: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${body}`));
  return `v1=${toHex(new Uint8Array(mac))}`;
}
