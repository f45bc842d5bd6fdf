/**
 * The end-to-end suite's timing bounds (test/e2e/support/machine-load.ts, bystander.ts): stretched
 * by the machine's load, never past eight times, so a real stall still fails however busy the
 * machine, and a bystander as fast under attack as alone passes.
 */
import { describe, expect, it } from "vitest";
import { expectWithinCalibration, MAX_OTHER_TENANT_LATENCY_MS } from "../e2e/support/bystander";
import { loadFactor, MAX_LOAD_FACTOR, underLoad } from "../e2e/support/machine-load";

const alone = { latencies: Array(20).fill(40), load: 1 };

describe("timing bounds under load", () => {
  it("stretch a bound by the load, from 1 up to the most", () => {
    expect(underLoad(1_000, 1)).toBe(1_000);
    expect(underLoad(1_000, 0.5)).toBe(1_000);
    expect(underLoad(1_000, 2.5)).toBe(2_500);
    expect(underLoad(1_000, 50)).toBe(1_000 * MAX_LOAD_FACTOR);
  });

  it("measure this machine's load as at least 1 and at most the cap", () => {
    const load = loadFactor(1);
    expect(load).toBeGreaterThanOrEqual(1);
    expect(load).toBeLessThanOrEqual(MAX_LOAD_FACTOR);
  });

  it("fail a bystander stalled for seconds, whatever the load, and pass one as fast as alone", () => {
    // The regression the work-bounds attack test guards: one validation holding the thread 29 s.
    const stalled = [...Array(20).fill(40), 29_000];
    expect(() => expectWithinCalibration(stalled, { ...alone, load: MAX_LOAD_FACTOR })).toThrow();
    expect(29_000).toBeGreaterThan(40 + MAX_OTHER_TENANT_LATENCY_MS * MAX_LOAD_FACTOR);
    expect(() => expectWithinCalibration(Array(20).fill(45), alone)).not.toThrow();
  });
});
