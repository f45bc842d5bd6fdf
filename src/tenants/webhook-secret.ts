/**
 * The secret that signs the tenant's webhook tool calls. It is kept in plain form because the
 * platform must sign with it (a hash would be useless); only tenant admins can read it.
 */
import type { WebhookSecret } from "./types";
import { toIso } from "./validate";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** 256 bits, the HMAC-SHA256 key size. */
export const WEBHOOK_SECRET_BYTES = 32;
const SECRET_KEY = "webhook_secret";

export function newWebhookSecret(now: number): WebhookSecret {
  const bytes = crypto.getRandomValues(new Uint8Array(WEBHOOK_SECRET_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const encoded = btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return { secret: `${WEBHOOK_SECRET_PREFIX}${encoded}`, created_at: toIso(now) };
}

/** The current secret, made on first read so every tenant has one without a setup step. */
export function readWebhookSecret(kv: SyncKvStorage, now: number): WebhookSecret {
  const stored = kv.get<WebhookSecret>(SECRET_KEY);
  if (stored) return stored;
  return rotateWebhookSecret(kv, now);
}

/** Replaces the secret; calls signed with the old one stop verifying at once. */
export function rotateWebhookSecret(kv: SyncKvStorage, now: number): WebhookSecret {
  const secret = newWebhookSecret(now);
  kv.put(SECRET_KEY, secret);
  return secret;
}
