import { describe, expect, it } from "vitest";
import {
  MAX_CURSOR_CHARS,
  decodeKeyCursor,
  decodeTimeIdCursor,
  encodeIntPairCursor,
  encodeKeyCursor,
  encodeTimeIdCursor,
} from "../../src/shared/cursor";

describe("cursors", () => {
  it("round-trip a (time, id) position and a key, as URL-safe text", () => {
    const cursor = encodeTimeIdCursor("sessions", 1_900_000_000_123, "ses_ü/+?");
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeTimeIdCursor("sessions", cursor)).toEqual({ ms: 1_900_000_000_123, id: "ses_ü/+?" });
    expect(decodeKeyCursor("tenants", encodeKeyCursor("tenants", "tenant-9"))).toBe("tenant-9");
  });

  it.each([
    ["empty", ""],
    ["not base64url", "a+b/c="],
    ["not JSON", btoa("nope").replace(/=+$/, "")],
    ["wrong arity", encodeKeyCursor("sessions", "x")],
    ["fractional time", btoa(JSON.stringify(["sessions", 1.5, "x"])).replace(/=+$/, "")],
    ["without its list", btoa(JSON.stringify([1, "x"])).replace(/=+$/, "")],
    ["of another list of the same shape", encodeTimeIdCursor("schedules", 1, "x")],
    ["of another list of another shape", encodeIntPairCursor("tool_calls", 1, 2)],
    ["too long", "A".repeat(MAX_CURSOR_CHARS + 1)],
  ])("refuses a time-id cursor that is %s", (_label, text) => {
    expect(decodeTimeIdCursor("sessions", text)).toBeNull();
  });

  it("refuses a key cursor that is a time-id cursor", () => {
    expect(decodeKeyCursor("tenants", encodeTimeIdCursor("tenants", 1, "x"))).toBeNull();
  });
});
