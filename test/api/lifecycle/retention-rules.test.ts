/** The retention rules, pure: which statuses expire, which retentions are valid, and the platform default. */
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../../src/config";
import type { Env } from "../../../src/env";
import { DAY_MS } from "../../../src/limits";
import {
  effectiveRetentionDays,
  expiresAt,
  isRetentionErasable,
  isValidRetentionDays,
  retentionCutoff,
  retryGapMs,
} from "../../../src/session-config/retention";
import { SESSION_STATUSES } from "../../../src/session-config/types";

describe("retention rules", () => {
  it("expire only sessions where nothing runs and nobody is asked for anything", () => {
    const expiring = SESSION_STATUSES.filter(isRetentionErasable);
    expect(expiring).toEqual(["idle", "done", "failed", "cancelled"]);
  });

  it.each([
    [1, true],
    [3650, true],
    [null, true],
    [0, false],
    [3651, false],
    [2.5, false],
    ["7", false],
    [undefined, false],
  ])("a retention of %j days is valid: %s", (days, valid) => {
    expect(isValidRetentionDays(days)).toBe(valid);
  });

  it("take the tenant's retention over the platform's, and keep sessions when neither is set", () => {
    expect(effectiveRetentionDays(7, 30)).toBe(7);
    expect(effectiveRetentionDays(null, 30)).toBe(30);
    expect(effectiveRetentionDays(null, null)).toBeNull();
  });

  it("count days from the last change, in the day length given", () => {
    expect(retentionCutoff(10 * DAY_MS, 3, DAY_MS)).toBe(7 * DAY_MS);
    expect(expiresAt(1_000, 2, 500)).toBe(2_000);
    expect(retryGapMs({ days: 1, dayMs: DAY_MS })).toBe(60 * 60 * 1000);
    expect(retryGapMs({ days: 1, dayMs: 1 })).toBe(1);
  });

  it("read DEFAULT_SESSION_RETENTION_DAYS and SESSION_RETENTION_SCALE once, refusing bad values", () => {
    expect(parseConfig({} as Env)).toMatchObject({ defaultSessionRetentionDays: null, retentionDayMs: DAY_MS });
    expect(parseConfig({ DEFAULT_SESSION_RETENTION_DAYS: "90", SESSION_RETENTION_SCALE: "0.5" } as Env)).toMatchObject({
      defaultSessionRetentionDays: 90,
      retentionDayMs: DAY_MS / 2,
    });
    for (const days of ["0", "3651", "1.5", "x"])
      expect(() => parseConfig({ DEFAULT_SESSION_RETENTION_DAYS: days } as Env)).toThrow(/DEFAULT_SESSION_RETENTION_DAYS/);
    expect(() => parseConfig({ SESSION_RETENTION_SCALE: "2" } as Env)).toThrow(/SESSION_RETENTION_SCALE/);
  });
});
