/**
 * What makes a slot's action idempotent: the session a session schedule creates and the request
 * key a message schedule sends are derived from the schedule and the slot, so a firing repeated
 * after a crash names the same session, or the same message, as the first try.
 */
import { base64url } from "../shared/base64";
import { SESSION_ID_PREFIX, SESSION_ID_RANDOM_BYTES } from "../session-config/ids";

/** A session id like any other (`ses_` and 24 url-safe characters), from a hash of schedule and slot. */
export async function slotSessionId(scheduleId: string, slot: number): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${scheduleId}:${slot}`));
  return SESSION_ID_PREFIX + base64url(new Uint8Array(digest).slice(0, SESSION_ID_RANDOM_BYTES));
}

export function slotRequestKey(scheduleId: string, slot: number): string {
  return `schedule:${scheduleId}:${slot}`;
}
