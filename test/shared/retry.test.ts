/**
 * The one retry rule, by table: after the n-th failure, try again after how long, or give up
 * (a failure that cannot pass, or no tries left); and the tries within one call stop on the rule,
 * a success or an abort.
 */
import { describe, expect, it } from "vitest";
import { linearDelay, nextAttempt, once, retrying, type RetryPolicy } from "../../src/shared/retry";
import { backoffDelay, MAX_RETRY_AFTER_MS, UNIT_RETRY } from "../../src/sessions/object/loop/retry";
import { MAX_ATTEMPTS, RETRY_BASE_MS, RETRY_MAX_MS } from "../../src/limits";

const THREE: RetryPolicy = { maxAttempts: 3, delayMs: linearDelay(500) };

describe("nextAttempt", () => {
  it.each([
    { policy: "three", failed: 1, transient: true, expected: { retry: true, attempts: 1, delayMs: 500 } },
    { policy: "three", failed: 2, transient: true, expected: { retry: true, attempts: 2, delayMs: 1_000 } },
    { policy: "three", failed: 3, transient: true, expected: { retry: false, attempts: 3, reason: "exhausted" } },
    { policy: "three", failed: 1, transient: false, expected: { retry: false, attempts: 1, reason: "fatal" } },
    { policy: "once", failed: 1, transient: true, expected: { retry: false, attempts: 1, reason: "exhausted" } },
    { policy: "unit", failed: 1, transient: true, expected: { retry: true, attempts: 1, delayMs: RETRY_BASE_MS } },
    { policy: "unit", failed: 3, transient: true, expected: { retry: true, attempts: 3, delayMs: 4 * RETRY_BASE_MS } },
    { policy: "unit", failed: MAX_ATTEMPTS - 1, transient: true, expected: { retry: true, attempts: MAX_ATTEMPTS - 1 } },
    { policy: "unit", failed: MAX_ATTEMPTS, transient: true, expected: { retry: false, attempts: MAX_ATTEMPTS, reason: "exhausted" } },
    { policy: "unit", failed: 2, transient: false, expected: { retry: false, attempts: 2, reason: "fatal" } },
  ] as const)("$policy, failure $failed (transient: $transient)", ({ policy, failed, transient, expected }) => {
    const chosen = policy === "three" ? THREE : policy === "once" ? once(THREE) : UNIT_RETRY;
    // random 1: the top of the jitter, the whole exponential delay.
    expect(nextAttempt(chosen, failed, { transient }, 1)).toMatchObject(expected);
  });

  it("never waits less than the other side's Retry-After, up to its bound", () => {
    expect(nextAttempt(UNIT_RETRY, 1, { transient: true, retryAfterMs: 30_000 }, 0)).toMatchObject({ retry: true, delayMs: 30_000 });
    expect(nextAttempt(UNIT_RETRY, 1, { transient: true, retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, 0)).toMatchObject({
      delayMs: MAX_RETRY_AFTER_MS,
    });
  });

  it("keeps the loop's backoff within half and all of its exponential step, and under its cap", () => {
    expect(backoffDelay(1, null, 0)).toBe(RETRY_BASE_MS / 2);
    expect(backoffDelay(20, null, 1)).toBe(RETRY_MAX_MS);
  });
});

describe("retrying", () => {
  const fast: RetryPolicy = { maxAttempts: 3, delayMs: () => 1 };

  it("stops at the first success", async () => {
    const tries: number[] = [];
    const value = await retrying(fast, new AbortController().signal, "none", async (n) => {
      tries.push(n);
      return n < 2 ? { done: false, value: `fail ${n}`, transient: true } : { done: true, value: "ok" };
    });
    expect({ value, tries }).toEqual({ value: "ok", tries: [1, 2] });
  });

  it("answers the last failure when the tries run out, or at once for one that cannot pass", async () => {
    let tries = 0;
    const exhausted = await retrying(fast, new AbortController().signal, "none", async (n) => {
      tries++;
      return { done: false, value: `fail ${n}`, transient: true };
    });
    expect({ exhausted, tries }).toEqual({ exhausted: "fail 3", tries: 3 });
    const fatal = await retrying(fast, new AbortController().signal, "none", async (n) => ({
      done: false,
      value: `fail ${n}`,
      transient: false,
    }));
    expect(fatal).toBe("fail 1");
  });

  it("makes no try once aborted, and none after an abort during one", async () => {
    const aborted = new AbortController();
    aborted.abort();
    expect(await retrying(fast, aborted.signal, "none", async () => ({ done: true, value: "ran" }))).toBe("none");
    const during = new AbortController();
    let tries = 0;
    const value = await retrying(fast, during.signal, "none", async (n) => {
      tries++;
      during.abort();
      return { done: false, value: `fail ${n}`, transient: true };
    });
    expect({ value, tries }).toEqual({ value: "fail 1", tries: 1 });
  });
});
