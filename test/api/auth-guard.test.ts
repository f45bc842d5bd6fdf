import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AuthGuard, FAILURE_WINDOW_MS, UNKNOWN_KEY_TTL_MS, VERIFIED_KEY_TTL_MS } from "../../src/api/auth-guard";
import { clientAddressKey, parseClientAddress } from "../../src/api/client-address";
import { ExpiringMap } from "../../src/api/expiring-map";

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const ignore = () => {};

/**
 * The binding counts in windows aligned to the wall-clock minute; a run that straddles one
 * would start counting again halfway. Waits out the last seconds of a minute.
 */
async function clearOfMinuteBoundary(marginMs = 5000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

function randomAddress(): string {
  const [a = 0, b = 0, c = 0] = crypto.getRandomValues(new Uint8Array(3));
  return `10.${a}.${b}.${c}`;
}

describe("ExpiringMap", () => {
  it("forgets an entry at its expiry", () => {
    const map = new ExpiringMap<number>(10, 1000);
    map.set("a", 1, NOW);
    expect(map.get("a", NOW + 999)).toBe(1);
    expect(map.get("a", NOW + 1000)).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it("takes an explicit expiry", () => {
    const map = new ExpiringMap<number>(10, 1000);
    map.set("a", 1, NOW, NOW + 5000);
    expect(map.has("a", NOW + 4999)).toBe(true);
    expect(map.has("a", NOW + 5000)).toBe(false);
  });

  it("never holds more than its bound, evicting the oldest write", () => {
    const map = new ExpiringMap<number>(3, 60_000);
    for (let i = 0; i < 1000; i++) map.set(`k${i}`, i, NOW);
    expect(map.size).toBe(3);
    expect(map.get("k996", NOW)).toBeUndefined();
    expect(map.get("k999", NOW)).toBe(999);
    map.set("k997", 0, NOW);
    map.set("new", 1, NOW);
    expect(map.has("k997", NOW)).toBe(true);
    expect(map.has("k998", NOW)).toBe(false);
  });
});

describe("clientAddressKey", () => {
  it.each([
    ["an IPv4 address", "203.0.113.7", "203.0.113.7"],
    ["surrounding space", " 203.0.113.7 ", "203.0.113.7"],
    ["an IPv6 address, by its /64", "2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3:8d3::/64"],
    ["another address of the same /64", "2001:0DB8:85A3:08D3::1", "2001:db8:85a3:8d3::/64"],
    ["a compressed IPv6 address", "2001:db8::1", "2001:db8:0:0::/64"],
    ["loopback", "::1", "0:0:0:0::/64"],
    ["IPv4-mapped IPv6", "::ffff:203.0.113.7", "0:0:0:0::/64"],
    ["no header", null, null],
    ["an empty header", "", null],
    ["a name", "localhost", null],
    ["an IPv4 octet out of range", "203.0.113.256", null],
    ["two compressions", "2001::db8::1", null],
    ["nine groups", "1:2:3:4:5:6:7:8:9", null],
    ["a bad group", "2001:db8::xyz", null],
    ["a list, by its last entry (the proxy's)", "198.51.100.1, 203.0.113.7", "203.0.113.7"],
    ["a list whose last entry is not an address", "203.0.113.7, unknown", null],
  ])("%s", (_name, header, expected) => {
    expect(clientAddressKey(parseClientAddress(header))).toBe(expected);
  });
});

describe("AuthGuard", () => {
  it("blocks an address once it passes the per-minute count, for the rest of the window", async () => {
    const guard = new AuthGuard();
    const address = randomAddress();
    for (let i = 0; i < 3; i++) expect(await guard.recordFailure(address, NOW + i, 3, undefined, ignore)).toBe(0);
    expect(guard.blockedSeconds(address, NOW + 10)).toBe(0);
    expect(await guard.recordFailure(address, NOW + 10, 3, undefined, ignore)).toBe(60);
    expect(guard.blockedSeconds(address, NOW + 30_000)).toBe(30);
    expect(guard.blockedSeconds(address, NOW + FAILURE_WINDOW_MS)).toBe(0);
    // A new window counts from zero.
    expect(await guard.recordFailure(address, NOW + FAILURE_WINDOW_MS, 3, undefined, ignore)).toBe(0);
  });

  it("blocks through the Rate Limiting binding what another isolate counted", async () => {
    const address = randomAddress();
    await clearOfMinuteBoundary();
    const first = new AuthGuard();
    // The binding's limit in wrangler.json is 60 a minute; each isolate's own count stays far below its threshold.
    for (let i = 0; i < 60; i++) expect(await first.recordFailure(address, NOW, 1000, env.AUTH_FAILURE_LIMITER, ignore)).toBe(0);
    const second = new AuthGuard();
    expect(await second.recordFailure(address, NOW, 1000, env.AUTH_FAILURE_LIMITER, ignore)).toBe(60);
    expect(second.blockedSeconds(address, NOW + 1000)).toBe(59);
  });

  it("keeps counting in the isolate when the binding fails", async () => {
    const guard = new AuthGuard();
    const address = randomAddress();
    const errors: unknown[] = [];
    const broken = { limit: () => Promise.reject(new Error("limiter down")) };
    expect(await guard.recordFailure(address, NOW, 1, broken, (error) => errors.push(error))).toBe(0);
    expect(errors).toHaveLength(1);
    expect(await guard.recordFailure(address, NOW, 1, broken, ignore)).toBe(60);
  });

  it("screens API keys: unknown ids never, and from a blocked address only recently verified ones", () => {
    const guard = new AuthGuard();
    expect(guard.screenApiKey("acme", "key_a", false, NOW)).toBe("look_up");
    expect(guard.screenApiKey("acme", "key_a", true, NOW)).toBe("address_blocked");

    guard.noteVerifiedKey("acme", "key_a", NOW);
    expect(guard.screenApiKey("acme", "key_a", true, NOW)).toBe("look_up");
    expect(guard.screenApiKey("globex", "key_a", true, NOW)).toBe("address_blocked");
    expect(guard.screenApiKey("acme", "key_a", true, NOW + VERIFIED_KEY_TTL_MS)).toBe("address_blocked");

    guard.noteUnknownKey("acme", "key_b", NOW);
    expect(guard.screenApiKey("acme", "key_b", false, NOW)).toBe("known_unknown");
    expect(guard.screenApiKey("acme", "key_b", false, NOW + UNKNOWN_KEY_TTL_MS)).toBe("look_up");
  });

  it("forgets an unknown key id when a key with that id is created", () => {
    const guard = new AuthGuard();
    guard.noteUnknownKey("acme", "key_c", NOW);
    guard.forgetUnknownKey("acme", "key_c");
    expect(guard.screenApiKey("acme", "key_c", false, NOW)).toBe("look_up");
  });
});
