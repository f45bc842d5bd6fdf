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

/** One window a request is counted in: its key in the limiter, and how many requests it admits. */
export interface RateWindow {
  key: string;
  limit: number;
}

/**
 * The outcome of counting one request. `remaining`: per window, in the order given, what is
 * left after this request (or, when refused, what was left before it). `resetSeconds`: until
 * the current windows end (they all end together).
 */
export type RateTake =
  | { ok: true; remaining: number[]; resetSeconds: number }
  | { ok: false; remaining: number[]; resetSeconds: number; retryAfterSeconds: number };

export function windowStartOf(now: number): number {
  return now - (now % RATE_WINDOW_MS);
}

/** Whole seconds until the window of `now` ends, at least 1 (a `Retry-After` of 0 invites a storm). */
export function secondsToWindowEnd(now: number): number {
  return Math.max(1, Math.ceil((windowStartOf(now) + RATE_WINDOW_MS - now) / 1000));
}

/** What was counted in the window of `now` so far. */
function usedIn(counted: WindowCount | undefined, now: number): number {
  return counted && counted.start === windowStartOf(now) ? counted.count : 0;
}

export class RateLimiter {
  #windows = new Map<string, WindowCount>();

  /**
   * Counts one request against every window, or against none if any window is full, so a
   * refused request does not use up the budget of the other windows it belongs to.
   */
  take(windows: readonly RateWindow[], now: number): RateTake {
    const used = windows.map((window) => usedIn(this.#windows.get(window.key), now));
    const resetSeconds = secondsToWindowEnd(now);
    if (windows.some((window, i) => used[i]! >= window.limit)) {
      return {
        ok: false,
        remaining: windows.map((window, i) => Math.max(0, window.limit - used[i]!)),
        resetSeconds,
        retryAfterSeconds: resetSeconds,
      };
    }
    const start = windowStartOf(now);
    for (const { key } of windows) {
      const counted = this.#windows.get(key);
      if (counted && counted.start === start) counted.count += 1;
      else this.#windows.set(key, { start, count: 1 });
    }
    if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(start);
    return { ok: true, remaining: windows.map((window, i) => Math.max(0, window.limit - used[i]! - 1)), resetSeconds };
  }

  #sweep(currentStart: number): void {
    for (const [key, counted] of this.#windows) if (counted.start < currentStart) this.#windows.delete(key);
  }
}
