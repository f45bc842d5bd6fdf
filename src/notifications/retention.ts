/**
 * How much of the delivery log a tenant index keeps. Pure. Every bound is per target (one of
 * the tenant's endpoints, or one notify URL), so one busy or broken receiver cannot push another
 * one's history out.
 *
 * - A delivery that is still owed (`pending`) is never dropped: it stays until it succeeds or its
 *   schedule ends (about 30 hours).
 * - A settled delivery (`succeeded` or `failed`) is kept for `DELIVERY_RETENTION_MS` after it was
 *   created, and only the newest `MAX_SETTLED_DELIVERIES_PER_TARGET` of a target.
 * - A target may owe at most `MAX_PENDING_DELIVERIES_PER_TARGET` deliveries; past that, a new one
 *   is recorded as failed at once (it can be redelivered), so a receiver that is down for a day
 *   under a flood of sessions cannot grow the tenant's storage without bound.
 * - A notification may be redelivered to a receiver at most once a minute and
 *   `MAX_REDELIVERIES_PER_DAY` times in any 24 hours (`redeliverWait`), so the route cannot turn
 *   the platform into a flood at someone's URL.
 */

export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export const MAX_SETTLED_DELIVERIES_PER_TARGET = 1_000;
export const MAX_PENDING_DELIVERIES_PER_TARGET = 5_000;
/** Rows deleted per pruning pass, so one pass stays short; the next alarm takes the rest. */
export const PRUNE_BATCH = 500;

export const BACKLOG_FULL_ERROR = `not sent: this receiver already has ${MAX_PENDING_DELIVERIES_PER_TARGET} notifications waiting; redeliver it once the receiver is back`;

/** Settled deliveries created before this time are dropped. */
export function retentionCutoff(now: number): number {
  return now - DELIVERY_RETENTION_MS;
}

/** How many of a target's `settled` deliveries to drop, oldest first, in one pass. */
export function settledExcess(settled: number): number {
  return Math.min(PRUNE_BATCH, Math.max(0, settled - MAX_SETTLED_DELIVERIES_PER_TARGET));
}

/** Whether a target that already owes `pending` deliveries may take one more. */
export function backlogHasRoom(pending: number): boolean {
  return pending < MAX_PENDING_DELIVERIES_PER_TARGET;
}

export const REDELIVER_INTERVAL_MS = 60 * 1000;
export const MAX_REDELIVERIES_PER_DAY = 10;
export const REDELIVER_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * How long before a notification may be redelivered to a receiver again, given when its earlier
 * redeliveries there were made (epoch ms, oldest first, the last `REDELIVER_WINDOW_MS` only); 0 when it may now.
 */
export function redeliverWait(earlier: readonly number[], now: number): number {
  const last = earlier.at(-1);
  const interval = last === undefined ? 0 : last + REDELIVER_INTERVAL_MS - now;
  const oldestCounted = earlier.length >= MAX_REDELIVERIES_PER_DAY ? earlier[earlier.length - MAX_REDELIVERIES_PER_DAY]! : undefined;
  const daily = oldestCounted === undefined ? 0 : oldestCounted + REDELIVER_WINDOW_MS - now;
  return Math.max(0, interval, daily);
}
