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

/** The most a shard asks the index for at once (`RateLimiter.grant`). */
export const MAX_RATE_PART = 10_000;

/**
 * The window a request of `now` is counted in: its own minute's, or a later one already counted
 * (a request or a shard's ask that arrives late, stamped by a clock behind, never resets the
 * window that began since).
 */
function windowOf(counted: WindowCount | undefined, now: number): WindowCount {
  const start = Math.max(windowStartOf(now), counted?.start ?? 0);
  return { start, count: counted && counted.start === start ? counted.count : 0 };
}

/** What was counted in the window of `now` so far. */
function usedIn(counted: WindowCount | undefined, now: number): number {
  return windowOf(counted, now).count;
}

/** What counts a request in its windows, all or none (the index's limiter; a shard's, which leases the tenant's windows). */
export interface WindowTaker {
  take(windows: readonly RateWindow[], now: number): RateTake;
}

/** What the index lends of one of a tenant's windows: requests to admit, what the window has left after them, and the window's start. */
export interface RateGrant {
  granted: number;
  remaining: number;
  start: number;
}

export class RateLimiter implements WindowTaker {
  #windows = new Map<string, WindowCount>();

  /**
   * Counts one request against every window, or against none if any window is full, so a
   * refused request does not use up the budget of the other windows it belongs to.
   */
  take(windows: readonly RateWindow[], now: number): RateTake {
    const counted = windows.map((window) => windowOf(this.#windows.get(window.key), now));
    const used = counted.map((window) => window.count);
    // A request of a minute already over is counted in the one that began since, and waits for its end.
    const resetSeconds = secondsToWindowEnd(Math.max(now, ...counted.map((window) => window.start)));
    if (windows.some((window, i) => used[i]! >= window.limit)) {
      return {
        ok: false,
        remaining: windows.map((window, i) => Math.max(0, window.limit - used[i]!)),
        resetSeconds,
        retryAfterSeconds: resetSeconds,
      };
    }
    for (const { key } of windows) {
      const counted = windowOf(this.#windows.get(key), now);
      this.#windows.set(key, { start: counted.start, count: counted.count + 1 });
    }
    if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(windowStartOf(now));
    return { ok: true, remaining: windows.map((window, i) => Math.max(0, window.limit - used[i]! - 1)), resetSeconds };
  }

  /** Where the window of `now` starts for `key`: its own minute's start, or a later one already counted. */
  windowStart(key: string, now: number): number {
    return windowOf(this.#windows.get(key), now).start;
  }

  /** What each window has left in the window of `now`, counting nothing. */
  remainingIn(windows: readonly RateWindow[], now: number): number[] {
    return windows.map((window) => Math.max(0, window.limit - usedIn(this.#windows.get(window.key), now)));
  }

  /**
   * Lends up to `want` requests of `window` in the window of `now`, counted here at once: at most
   * the room left spread over `spread` borrowers (half of it each, at least 1), so the last of a
   * window goes out in small parts and no borrower sits on what another needs.
   */
  grant(window: RateWindow, want: number, now: number, spread: number): RateGrant {
    const counted = windowOf(this.#windows.get(window.key), now);
    const room = Math.max(0, window.limit - counted.count);
    const granted = Math.min(want, room, Math.max(1, Math.ceil(room / (2 * Math.max(1, spread)))));
    if (granted > 0) {
      this.#windows.set(window.key, { start: counted.start, count: counted.count + granted });
      if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(windowStartOf(now));
    }
    return { granted, remaining: room - granted, start: counted.start };
  }

  #sweep(currentStart: number): void {
    for (const [key, counted] of this.#windows) if (counted.start < currentStart) this.#windows.delete(key);
  }
}
