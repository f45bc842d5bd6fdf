/**
 * Request keys the session object has applied, so a caller that lost an answer (a scheduler killed between
 * sending a message and recording it) can send the same message again without it running twice.
 * Kept in the key-value entry `request_keys`, newest last, the newest `MAX_REQUEST_KEYS` only;
 * absent reads as none, which is also what storage written before this entry existed holds.
 */

/** A scheduler retries within minutes, and a session takes a handful of keyed messages a day. */
export const MAX_REQUEST_KEYS = 64;
export const MAX_REQUEST_KEY_CHARS = 256;
const REQUEST_KEYS_KEY = "request_keys";

/** What a keyed message did the first time. */
export type RequestOutcome = "started" | "enqueued" | "interrupted";

interface AppliedRequest {
  key: string;
  outcome: RequestOutcome;
  at: number;
}

/** A key is a caller's string; anything else is a programming error, refused before storage. */
export function checkRequestKey(key: unknown): string | null {
  if (key === null || key === undefined) return null;
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_REQUEST_KEY_CHARS) {
    throw new TypeError(`requestKey must be a string of 1-${MAX_REQUEST_KEY_CHARS} characters`);
  }
  return key;
}

export function appliedOutcome(kv: SyncKvStorage, key: string): RequestOutcome | null {
  return read(kv).find((entry) => entry.key === key)?.outcome ?? null;
}

/** Call in the same synchronous turn as the change the key stands for, so both are saved together. */
export function noteApplied(kv: SyncKvStorage, key: string, outcome: RequestOutcome, now: number): void {
  const kept = read(kv).filter((entry) => entry.key !== key);
  kept.push({ key, outcome, at: now });
  kv.put(REQUEST_KEYS_KEY, kept.slice(-MAX_REQUEST_KEYS));
}

function read(kv: SyncKvStorage): AppliedRequest[] {
  return kv.get<AppliedRequest[]>(REQUEST_KEYS_KEY) ?? [];
}
