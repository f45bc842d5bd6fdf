/**
 * The secret that signs the calls the platform makes to the tenant (webhook tools, status webhooks). It is kept in plain form because the
 * platform must sign with it (a hash would be useless); only tenant admins can read it.
 *
 * A rotation keeps the secret it replaces for `WEBHOOK_SECRET_GRACE_MS`, and calls are signed
 * with both meanwhile, so receivers can be moved to the new secret one by one without refusing
 * a single call. The previous secret is a sibling key: storage written before rotations had a
 * grace period simply has none, which is also what a tenant that never rotated has.
 */
import type { SigningSecret } from "./types";
import { toIso } from "../shared/validate";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** 256 bits, the HMAC-SHA256 key size. */
export const WEBHOOK_SECRET_BYTES = 32;
/**
 * How long the replaced secret keeps signing: a working day to update every receiver (several
 * deployments, a team in another time zone), short enough that a leaked secret that was rotated
 * away stops working within a day.
 */
export const WEBHOOK_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

const SECRET_KEY = "webhook_secret";
const PREVIOUS_KEY = "webhook_secret_previous";

interface StoredSecret {
  secret: string;
  created_at: string;
}

interface PreviousSecret {
  secret: string;
  /** Milliseconds since the epoch. */
  expires_at: number;
}

export function newSigningSecret(now: number): StoredSecret {
  const bytes = crypto.getRandomValues(new Uint8Array(WEBHOOK_SECRET_BYTES));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const encoded = btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return { secret: `${WEBHOOK_SECRET_PREFIX}${encoded}`, created_at: toIso(now) };
}

/** The current secret, made on first read so every tenant has one without a setup step. */
export function readSigningSecret(kv: SyncKvStorage, now: number): SigningSecret {
  const stored = kv.get<StoredSecret>(SECRET_KEY);
  if (!stored) return rotateWebhookSecret(kv, now);
  const previous = livePrevious(kv, now);
  return { secret: stored.secret, created_at: stored.created_at, previous_expires_at: previous ? toIso(previous.expires_at) : null };
}

/**
 * Replaces the secret; the one replaced keeps signing for the grace period. Rotating again
 * within it ends the older one's grace at once: at most two secrets are ever valid.
 */
export function rotateWebhookSecret(kv: SyncKvStorage, now: number): SigningSecret {
  const current = kv.get<StoredSecret>(SECRET_KEY);
  const next = newSigningSecret(now);
  const previous: PreviousSecret | null = current ? { secret: current.secret, expires_at: now + WEBHOOK_SECRET_GRACE_MS } : null;
  if (previous) kv.put(PREVIOUS_KEY, previous);
  kv.put(SECRET_KEY, next);
  return { ...next, previous_expires_at: previous ? toIso(previous.expires_at) : null };
}

/** Every secret a call is signed with, newest first. */
export function signingSecrets(kv: SyncKvStorage, now: number): string[] {
  const { secret } = readSigningSecret(kv, now);
  const previous = livePrevious(kv, now);
  return previous ? [secret, previous.secret] : [secret];
}

function livePrevious(kv: SyncKvStorage, now: number): PreviousSecret | null {
  const previous = kv.get<PreviousSecret>(PREVIOUS_KEY);
  if (!previous) return null;
  if (now < previous.expires_at) return previous;
  kv.delete(PREVIOUS_KEY);
  return null;
}
