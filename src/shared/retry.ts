/**
 * The one retry rule: after a failure, try again (and after how long) or give up. Every copy of
 * attempts and backoff uses it: the loop's units (a model call, an MCP listing, a fault) and the
 * tries within one tool call (webhooks, MCP calls).
 */

/** How many tries in all, and the wait before the next one. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  /** The wait after `failed` (1-based) failures in a row; `retryAfterMs`: what the other side asked for. */
  delayMs(failed: number, retryAfterMs: number | null, random: number): number;
}

/** A failure as the rule sees it: whether it may pass, and any wait the other side asked for. */
export interface Failure {
  readonly transient: boolean;
  readonly retryAfterMs?: number | null;
}

export type RetryDecision =
  | { readonly retry: true; readonly attempts: number; readonly delayMs: number }
  | { readonly retry: false; readonly attempts: number; readonly reason: "fatal" | "exhausted" };

/**
 * Pure: after the `failed`-th failure in a row (1-based), whether to try again and when. A
 * failure that cannot pass is never retried; past `maxAttempts` tries in all, none is.
 */
export function nextAttempt(policy: RetryPolicy, failed: number, failure: Failure, random: number = Math.random()): RetryDecision {
  if (!failure.transient) return { retry: false, attempts: failed, reason: "fatal" };
  if (failed >= policy.maxAttempts) return { retry: false, attempts: failed, reason: "exhausted" };
  return { retry: true, attempts: failed, delayMs: policy.delayMs(failed, failure.retryAfterMs ?? null, random) };
}

/** A policy whose call must not be repeated: one try, whatever the failure. */
export function once(policy: RetryPolicy): RetryPolicy {
  return { ...policy, maxAttempts: 1 };
}

/** One try's result: `done` ends the tries with its value; a failure may be tried again. */
export type Attempt<T> = { done: true; value: T } | ({ done: false; value: T } & Failure);

/**
 * Tries `attempt` until it is done, the rule gives up or `signal` aborts; answers the last
 * value (`fallback` when no try was made). The waits happen within the caller's own time.
 */
export async function retrying<T>(
  policy: RetryPolicy,
  signal: AbortSignal,
  fallback: T,
  attempt: (n: number) => Promise<Attempt<T>>,
): Promise<T> {
  let last = fallback;
  for (let n = 1; !signal.aborted; n++) {
    const result = await attempt(n);
    if (result.done) return result.value;
    last = result.value;
    const next = nextAttempt(policy, n, result);
    if (!next.retry || signal.aborted) return last;
    await scheduler.wait(next.delayMs);
  }
  return last;
}

/** A wait that grows by `stepMs` with each failure: 1×, 2×, 3× … (the tries within one tool call). */
export function linearDelay(stepMs: number): RetryPolicy["delayMs"] {
  return (failed) => stepMs * failed;
}
