/**
 * When a notification is tried again. Pure: the clock reading and the random draw are passed in.
 *
 * A delivery to a receiver is tried at once, then after each delay of `DELIVERY_RETRY_DELAYS_MS`
 * (moved by up to ±10 % so that deliveries that failed together spread out): 11 attempts over
 * about 30 hours, never less than 26.7 hours, so a receiver that is down for a whole day still gets
 * every notification. The hand-off from a session to its tenant index, which the delivery starts
 * with, is retried for as long as it takes.
 */

const SECOND_MS = 1_000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;

/** Delays before attempt 2, 3, …: quick at first (a blip, a deploy), then hours (an outage). */
export const DELIVERY_RETRY_DELAYS_MS: readonly number[] = [
  30 * SECOND_MS,
  2 * MINUTE_MS,
  10 * MINUTE_MS,
  30 * MINUTE_MS,
  1 * HOUR_MS,
  2 * HOUR_MS,
  4 * HOUR_MS,
  6 * HOUR_MS,
  8 * HOUR_MS,
  8 * HOUR_MS,
];
export const MAX_DELIVERY_ATTEMPTS = DELIVERY_RETRY_DELAYS_MS.length + 1;
/** Each delay moves by up to this fraction either way. */
export const DELIVERY_RETRY_JITTER = 0.1;
/** What the schedule promises: the last attempt comes at least this long after the first. */
export const MIN_DELIVERY_SPAN_MS = 24 * HOUR_MS;

/**
 * The delay before the next attempt after `attempts` attempts (1-based) have failed, or null when
 * none is left. `scale` (0 < scale ≤ 1) shortens every delay; it is 1 in production and set by
 * `NOTIFY_RETRY_SCALE` where tests must see the whole schedule in seconds.
 */
export function deliveryRetryDelay(attempts: number, scale = 1, random = Math.random()): number | null {
  if (!Number.isInteger(attempts) || attempts < 1 || attempts >= MAX_DELIVERY_ATTEMPTS) return null;
  const base = DELIVERY_RETRY_DELAYS_MS[attempts - 1]! * scale;
  return Math.round(base * (1 - DELIVERY_RETRY_JITTER + 2 * DELIVERY_RETRY_JITTER * random));
}

/** The shortest possible time from the first attempt to the last (every draw at its lowest). */
export function minimumDeliverySpan(scale = 1): number {
  let total = 0;
  for (let attempts = 1; attempts < MAX_DELIVERY_ATTEMPTS; attempts++) total += deliveryRetryDelay(attempts, scale, 0)!;
  return total;
}

/** A failed hand-off to the tenant index is tried again after this long, doubling per failure. */
export const HANDOFF_RETRY_MS = 5 * SECOND_MS;
export const HANDOFF_RETRY_MAX_MS = 5 * MINUTE_MS;

export function handoffRetryDelay(failures: number): number {
  return Math.min(HANDOFF_RETRY_MAX_MS, HANDOFF_RETRY_MS * 2 ** Math.max(0, failures - 1));
}
