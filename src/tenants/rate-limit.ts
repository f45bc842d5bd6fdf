/**
 * Request rate limiting with fixed one-minute windows, counted in memory. Counters are lost when
 * the object restarts or is evicted, which at worst lets a tenant through one extra window's
 * worth of requests: acceptable for a fairness limit, and it keeps every request free of writes.
 * A fixed window lets a burst of up to twice the limit straddle a window boundary; also accepted.
 */

export const RATE_WINDOW_MS = 60_000;
/** Above this many counters, the ones of past windows are dropped, so memory stays bounded. */
const SWEEP_THRESHOLD = 10_000;

export interface WindowCount {
  start: number;
  count: number;
}

export type RateCheck = { ok: true } | { ok: false; retryAfterSeconds: number };

export function windowStartOf(now: number): number {
  return now - (now % RATE_WINDOW_MS);
}

/** Whether one more request fits in the window of `now`, given what was counted so far. */
export function checkWindow(counted: WindowCount | undefined, now: number, limit: number): RateCheck {
  const start = windowStartOf(now);
  const used = counted && counted.start === start ? counted.count : 0;
  if (used < limit) return { ok: true };
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((start + RATE_WINDOW_MS - now) / 1000)) };
}

export class RateLimiter {
  #windows = new Map<string, WindowCount>();

  /**
   * Counts one request against every key, or against none if any key is full, so a refused
   * request does not use up the budget of the other windows it belongs to.
   */
  take(keys: readonly string[], limit: number, now: number): RateCheck {
    let refusal: RateCheck = { ok: true };
    for (const key of keys) {
      const check = checkWindow(this.#windows.get(key), now, limit);
      if (!check.ok && (refusal.ok || check.retryAfterSeconds > refusal.retryAfterSeconds)) refusal = check;
    }
    if (!refusal.ok) return refusal;
    const start = windowStartOf(now);
    for (const key of keys) {
      const counted = this.#windows.get(key);
      if (counted && counted.start === start) counted.count += 1;
      else this.#windows.set(key, { start, count: 1 });
    }
    if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(start);
    return { ok: true };
  }

  #sweep(currentStart: number): void {
    for (const [key, counted] of this.#windows) if (counted.start < currentStart) this.#windows.delete(key);
  }
}
