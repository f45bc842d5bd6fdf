/**
 * A shard's counting of its callers' requests: each caller's windows here, exactly (a caller's
 * bucket hashes to one shard of the layout), and the tenant's own windows from parts the index
 * lends (`leaseRate`), a few requests at a time. No more than the tenant's window is ever lent, so
 * the tenant's limit holds across shards; a part lent and not used by the window's end is lost, so
 * a busy tenant may be refused a little before its limit, never after it.
 *
 * A request holds its unit of each of the tenant's windows from the moment it is readied: the
 * requests that waited for one borrowing each take their own, and only those the part did not
 * cover borrow again. A window the index said was used up is refused here until it ends.
 */
import { isTenantWindow } from "../admission";
import type { RateAsk } from "../admission-flow";
import {
  MAX_RATE_PART,
  type RateGrant,
  RateLimiter,
  type RateTake,
  type RateWindow,
  secondsToWindowEnd,
  windowStartOf,
  type WindowTaker,
} from "../rate-limit";

/** What is left of the parts lent for one window; `remaining`: the index's count of the rest when it last lent; `dry`: it had none. */
interface Pool {
  start: number;
  left: number;
  remaining: number;
  dry: boolean;
}

/** Lends parts of the tenant's windows (the index, over RPC). */
export type RateLender = (asks: RateAsk[], now: number) => Promise<RateGrant[]>;

/** Rounds of waiting for or asking the index one request goes through before it is refused. */
const MAX_ROUNDS = 16;

/** What a shard asks for at once: a quarter of the window over the shards, at least one request. */
export function partWanted(limit: number, shards: number): number {
  return Math.min(MAX_RATE_PART, Math.max(1, Math.ceil(limit / (4 * Math.max(1, shards)))));
}

/** A pool per window and limit: an admin's request borrows under the whole tenant window, the others under less. */
function poolKey(window: RateWindow): string {
  return `${window.key}@${window.limit}`;
}

export class RatePools {
  readonly #callers = new RateLimiter();
  readonly #pools = new Map<string, Pool>();
  readonly #asking = new Map<string, Promise<void>>();
  /** Moves on every `refresh`: an answer to a borrow begun before it cannot mark a window used up. */
  #generation = 0;

  constructor(
    readonly lend: RateLender,
    readonly shards: number,
  ) {}

  /** The taker of one request: a unit of each of the tenant's windows held for it where one could be had. An unreachable index throws. */
  async ready(windows: readonly RateWindow[], now: number): Promise<WindowTaker> {
    const shared = windows.filter(isTenantWindow);
    const held = new Set<Pool>();
    try {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const missing = shared.filter((window) => !this.#hold(window, now, held));
        if (missing.length === 0 || missing.some((window) => this.#pool(window, now)?.dry)) break;
        // Another request of this shard is borrowing the same: its part may cover this one too.
        const waiting = missing.flatMap((window) => this.#asking.get(poolKey(window)) ?? []);
        if (waiting.length > 0) await Promise.allSettled(waiting);
        else await this.#borrow(missing, now);
      }
    } catch (error) {
      this.#release(held);
      throw error;
    }
    return { take: (counted, at) => this.#take(counted, at, held) };
  }

  /** After a change of the tenant's config: a window the index refused (a suspension) may be lent again. */
  refresh(): void {
    this.#generation += 1;
    for (const pool of this.#pools.values()) pool.dry = false;
  }

  #release(held: Set<Pool>): void {
    for (const pool of held) pool.left += 1;
    held.clear();
  }

  /** Takes a unit of `window`'s pool for the request holding `held`, unless it holds one already; false: none left. */
  #hold(window: RateWindow, now: number, held: Set<Pool>): boolean {
    const pool = this.#pool(window, now);
    if (pool && held.has(pool)) return true;
    if (!pool || pool.left < 1) return false;
    pool.left -= 1;
    held.add(pool);
    return true;
  }

  /** Counts the request in every window or in none; a unit held and not used goes back to its pool. */
  #take(windows: readonly RateWindow[], now: number, held: Set<Pool>): RateTake {
    const callers = windows.filter((window) => !isTenantWindow(window));
    // A request stamped late is counted in the window that began since, and waits for its end.
    const starts = windows.filter(isTenantWindow).map((window) => this.#pool(window, now)?.start ?? 0);
    const resetSeconds = secondsToWindowEnd(Math.max(now, ...starts));
    const pooled = windows.every((window) => !isTenantWindow(window) || held.has(this.#pool(window, now)!));
    const taken = pooled ? this.#callers.take(callers, now) : null;
    if (taken?.ok) held.clear();
    else this.#release(held);
    const callerLeft = taken ? taken.remaining : this.#callers.remainingIn(callers, now);
    let c = 0;
    const remaining = windows.map((window) => {
      if (!isTenantWindow(window)) return callerLeft[c++]!;
      const pool = this.#pool(window, now);
      return pool ? pool.remaining + pool.left : 0;
    });
    const reset = Math.max(resetSeconds, taken?.resetSeconds ?? 0);
    if (taken?.ok) return { ok: true, remaining, resetSeconds: reset };
    return { ok: false, remaining, resetSeconds: reset, retryAfterSeconds: reset };
  }

  async #borrow(windows: readonly RateWindow[], now: number): Promise<void> {
    const asks = windows.map((window) => ({ key: window.key, limit: window.limit, want: partWanted(window.limit, this.shards) }));
    const generation = this.#generation;
    const asked = this.lend(asks, now).then((grants) =>
      grants.forEach((grant, i) => this.#keep(windows[i]!, grant, now, generation === this.#generation)),
    );
    for (const window of windows) this.#asking.set(poolKey(window), asked);
    try {
      await asked;
    } finally {
      for (const window of windows) if (this.#asking.get(poolKey(window)) === asked) this.#asking.delete(poolKey(window));
    }
  }

  /** The pool of the window of `now`, or of a later one (a request stamped late counts in the window that began since). */
  #pool(window: RateWindow, now: number): Pool | null {
    const pool = this.#pools.get(poolKey(window));
    return pool && pool.start >= windowStartOf(now) ? pool : null;
  }

  /** Keeps a part in the window the index counted it in: a part of an older window than the pool's is lost, never the pool. */
  #keep(window: RateWindow, grant: RateGrant, now: number, current: boolean): void {
    const dry = current && grant.granted === 0 && grant.remaining === 0;
    const start = Number.isFinite(grant.start) ? grant.start : windowStartOf(now);
    const pool = this.#pools.get(poolKey(window));
    if (pool && pool.start === start) {
      pool.left += grant.granted;
      pool.remaining = grant.remaining;
      pool.dry = dry;
    } else if (!pool || pool.start < start)
      this.#pools.set(poolKey(window), { start, left: grant.granted, remaining: grant.remaining, dry });
  }
}
