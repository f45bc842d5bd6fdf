/**
 * Schedule ids as the API accepts them: `sch_` plus random url-safe characters; anything else
 * is answered like an unknown schedule, never looked up.
 */
import { base64url } from "../../shared/base64";
import { SESSION_ID_RANDOM_BYTES } from "../../session-config/ids";

export const SCHEDULE_ID_PREFIX = "sch_";
export const MAX_SCHEDULE_ID_CHARS = 80;
export const SCHEDULE_ID_PATTERN = /^sch_[A-Za-z0-9_-]{24,76}$/;

/** As many random bits as a session id: unguessable, and never colliding in practice. */
export function newScheduleId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(SESSION_ID_RANDOM_BYTES));
  return SCHEDULE_ID_PREFIX + base64url(bytes);
}

export function isScheduleId(value: string): boolean {
  return value.length <= MAX_SCHEDULE_ID_CHARS && SCHEDULE_ID_PATTERN.test(value);
}
