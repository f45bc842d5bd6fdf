import { describe, expect, it } from "vitest";
import { isOriginAllowed, normalizeOrigin } from "../../src/egress/allowed-origins";

const strict = { allowPrivateUrls: false };
const local = { allowPrivateUrls: true };

describe("normalizeOrigin", () => {
  it.each([
    ["https://hooks.example.com", "https://hooks.example.com"],
    ["HTTPS://Hooks.EXAMPLE.com", "https://hooks.example.com"],
    ["https://hooks.example.com/", "https://hooks.example.com"],
    ["https://hooks.example.com:443", "https://hooks.example.com"],
    ["https://hooks.example.com:8443", "https://hooks.example.com:8443"],
    [" https://hooks.example.com", "https://hooks.example.com"],
    ["https://bücher.example", "https://xn--bcher-kva.example"],
  ])("reads %j as %s", (raw, origin) => {
    expect(normalizeOrigin(raw, strict)).toEqual({ ok: true, origin });
  });

  it.each([
    ["http://hooks.example.com", "Origins must use https."],
    ["https://hooks.example.com/x", "no path"],
    ["https://hooks.example.com?", "no path"],
    ["https://hooks.example.com#", "no path"],
    ["https://127.0.0.1", "loopback"],
    ["https://u@hooks.example.com", "user name"],
    ["hooks.example.com", "not valid"],
    ["https://*.example.com", "wildcards"],
    ["https://*", "the host *"],
    ["https://hooks.*.com", "wildcards"],
    ["https://hooks!.example.com", "one host name"],
  ])("refuses %j", (raw, reason) => {
    const result = normalizeOrigin(raw, strict);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toContain(reason);
  });

  it("accepts http and loopback when private URLs are allowed, for local tests", () => {
    expect(normalizeOrigin("http://127.0.0.1:8788", local)).toEqual({ ok: true, origin: "http://127.0.0.1:8788" });
    expect(normalizeOrigin("http://[::1]:8788", local)).toEqual({ ok: true, origin: "http://[::1]:8788" });
    expect(normalizeOrigin("http://*.localhost", local)).toMatchObject({ ok: false });
  });
});

describe("isOriginAllowed", () => {
  const list = ["https://hooks.example.com", "https://other.example.com:8443"];
  it.each([
    ["https://hooks.example.com/a/b?c=d", list, true],
    ["https://HOOKS.example.com:443/a", list, true],
    ["https://other.example.com:8443/", list, true],
    ["https://other.example.com/", list, false],
    ["https://hooks.example.com.evil.net/", list, false],
    ["https://evil.net/https://hooks.example.com", list, false],
    ["http://hooks.example.com/", list, false],
    ["not a url", list, false],
    ["https://anything.example.net/", null, true],
    ["https://hooks.example.com/", [], false],
  ])("%s under %j: %s", (url, allowed, expected) => {
    expect(isOriginAllowed(url, allowed)).toBe(expected);
  });
});
