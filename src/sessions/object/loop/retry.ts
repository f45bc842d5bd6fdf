/** The loop's retry policy: exponential backoff with jitter that never undercuts `Retry-After`. */
import { MAX_ATTEMPTS, RETRY_BASE_MS, RETRY_MAX_MS } from "../../../limits";
import type { RetryPolicy } from "../../../shared/retry";

/** A provider may ask for a long pause; past this the run waits this long and tries again. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

/** Delay before attempt `attempt + 1`, given that `attempt` (1-based) attempts have failed. */
export function backoffDelay(attempt: number, retryAfterMs: number | null, random: number = Math.random()): number {
  const exponential = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.max(0, attempt - 1));
  // Full jitter over the upper half spreads retries of many sessions without ever going below half.
  const jittered = Math.round(exponential / 2 + (exponential / 2) * random);
  if (retryAfterMs === null) return jittered;
  return Math.max(Math.min(retryAfterMs, MAX_RETRY_AFTER_MS), jittered);
}

/** A unit that failed (a model call, an MCP listing, a fault) runs again in a later alarm, `MAX_ATTEMPTS` tries in all. */
export const UNIT_RETRY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, delayMs: backoffDelay };
