import { describe, expect, it } from "vitest";
import { canonicalTimeZone, checkCron, nextSlot } from "../../src/schedules/cron";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe("checkCron", () => {
  it.each([
    ["five fields", "0 9 * * MON-FRI", "UTC"],
    ["a leading seconds field", "*/5 * * * * *", "UTC"],
    ["a nickname", "@hourly", "Europe/Paris"],
    ["names, lists and ranges", "0 0 1,15 JAN-JUN *", "America/New_York"],
  ])("accepts %s", (_name, cron, zone) => {
    expect(checkCron(cron, zone, at("2026-01-01T00:00:00Z"))).toEqual({ ok: true, timezone: zone });
  });

  it.each([
    ["an empty expression", ""],
    ["a value out of range", "61 * * * *"],
    ["seven fields (a year)", "0 0 0 1 1 * 2030"],
    ["four fields", "* * * *"],
    ["letters that are not names", "0 9 * * SOMEDAY"],
  ])("refuses %s on cron", (_name, cron) => {
    const check = checkCron(cron, "UTC", at("2026-01-01T00:00:00Z"));
    expect(check).toMatchObject({ ok: false, field: "cron" });
    if (!check.ok) expect(check.message).toMatch(/^Not a cron expression/);
  });

  it("refuses an expression that never matches (30 February)", () => {
    expect(checkCron("0 0 30 2 *", "UTC", at("2026-01-01T00:00:00Z"))).toEqual({
      ok: false,
      field: "cron",
      message: "Never matches a future time.",
    });
  });

  it("refuses an unknown time zone on timezone, and gives known ones their canonical spelling", () => {
    expect(checkCron("* * * * *", "Mars/Olympus", 0)).toMatchObject({ ok: false, field: "timezone" });
    expect(checkCron("* * * * *", "", 0)).toMatchObject({ ok: false, field: "timezone" });
    expect(checkCron("* * * * *", "utc", 0)).toEqual({ ok: true, timezone: "UTC" });
    expect(canonicalTimeZone("europe/paris")).toBe("Europe/Paris");
    expect(canonicalTimeZone("x".repeat(65))).toBeNull();
  });
});

describe("nextSlot", () => {
  it("is strictly after the reference, in whole seconds, with a seconds field", () => {
    expect(iso(nextSlot("*/2 * * * * *", "UTC", at("2026-01-01T00:00:00Z")))).toBe("2026-01-01T00:00:02.000Z");
    expect(iso(nextSlot("*/2 * * * * *", "UTC", at("2026-01-01T00:00:01.500Z")))).toBe("2026-01-01T00:00:02.000Z");
  });

  it("reads the expression in the zone, across a daylight-saving change", () => {
    // Paris is UTC+1 in winter and UTC+2 from 29 March 2026.
    expect(iso(nextSlot("0 9 * * *", "Europe/Paris", at("2026-03-27T12:00:00Z")))).toBe("2026-03-28T08:00:00.000Z");
    expect(iso(nextSlot("0 9 * * *", "Europe/Paris", at("2026-03-28T12:00:00Z")))).toBe("2026-03-29T07:00:00.000Z");
    expect(iso(nextSlot("0 9 * * MON-FRI", "America/New_York", at("2026-01-02T15:00:00Z")))).toBe("2026-01-05T14:00:00.000Z");
  });

  it("fires a local time the change skips at the first time after it", () => {
    // 02:30 does not exist in Paris on 29 March 2026: the clock goes from 02:00 to 03:00 (01:00Z).
    expect(iso(nextSlot("30 2 * * *", "Europe/Paris", at("2026-03-29T00:00:00Z")))).toBe("2026-03-29T01:00:00.000Z");
  });
});
