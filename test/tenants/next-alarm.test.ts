/** The tenant index's one rule for when its alarm fires next, pure: each row a case. */
import { describe, expect, it } from "vitest";
import { type IndexDue, nextAlarmAt } from "../../src/tenants/tenant-index/alarm";

const NOTHING: IndexDue = { suspended: false, pumpAt: null, deliveryAt: null, expiryAt: null, sweepNotBefore: 0, auditRetryAt: null };

describe("nextAlarmAt", () => {
  const cases: [string, Partial<IndexDue>, number | null][] = [
    ["nothing due: no alarm", {}, null],
    ["the pump alone", { pumpAt: 500 }, 500],
    ["a suspended tenant's pump is not due", { suspended: true, pumpAt: 500 }, null],
    ["a suspended tenant still delivers", { suspended: true, pumpAt: 500, deliveryAt: 900 }, 900],
    ["the earliest of pump, delivery and audit", { pumpAt: 700, deliveryAt: 300, auditRetryAt: 400 }, 300],
    ["an expiry alone", { expiryAt: 1_000 }, 1_000],
    ["an expiry waits for the sweep's retry gap", { expiryAt: 1_000, sweepNotBefore: 5_000 }, 5_000],
    ["a gap already over does not delay an expiry", { expiryAt: 1_000, sweepNotBefore: 200 }, 1_000],
    ["the gap delays the sweep only", { expiryAt: 1_000, sweepNotBefore: 5_000, deliveryAt: 2_000 }, 2_000],
    ["an audit hand-over retry alone", { auditRetryAt: 42 }, 42],
  ];
  it.each(cases)("%s", (_name, due, expected) => {
    expect(nextAlarmAt({ ...NOTHING, ...due })).toBe(expected);
  });
});
