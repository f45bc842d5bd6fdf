/** Bounded polling: every wait in the suite ends, by count and by time, with a readable failure. */
import { setTimeout as sleep } from "node:timers/promises";

export interface WaitOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Named in the failure message. */
  what: string;
}

const DEFAULT_INTERVAL_MS = 100;

/**
 * Calls `probe` until it returns a value other than undefined, and returns that value. A probe
 * that throws is retried (the platform may be restarting); the last error is in the failure.
 */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  const interval = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const deadline = Date.now() + options.timeoutMs;
  const maxTries = Math.ceil(options.timeoutMs / interval) + 1;
  let lastError: unknown = null;
  for (let tries = 0; tries < maxTries; tries++) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      lastError = null;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await sleep(interval);
  }
  const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : "";
  throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}${cause}`);
}
