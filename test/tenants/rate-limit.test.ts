import { describe, expect, it } from "vitest";
import { RATE_WINDOW_MS, RateLimiter } from "../../src/tenants/rate-limit";
import { freshTenant, indexOf } from "./helpers";

/** The start of a one-minute window. */
const WINDOW = Math.floor(Date.UTC(2030, 2, 10, 12, 0, 0) / RATE_WINDOW_MS) * RATE_WINDOW_MS;

describe("admitRequest rate limit", () => {
  it("admits requests_per_minute requests, then refuses until the window ends", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 5 });
    for (let i = 0; i < 5; i++) expect((await index.admitRequest(tenantId, { bucket: `key_${i}`, now: WINDOW + i })).ok).toBe(true);
    expect(await index.admitRequest(tenantId, { bucket: "key_a", now: WINDOW + 15_500 })).toMatchObject({
      ok: false,
      code: "rate_limited",
      retryAfterSeconds: 45,
      rate: { current: { name: "tenant", remaining: 0, resetSeconds: 45 } },
    });
    expect((await index.admitRequest(tenantId, { bucket: "key_a", now: WINDOW + RATE_WINDOW_MS })).ok).toBe(true);
  });

  it("counts every bucket of the tenant against the same per-minute total", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 4 });
    for (const bucket of ["key_a", "key_b", "user:1", "key_a"]) {
      expect((await index.admitRequest(tenantId, { bucket, now: WINDOW })).ok).toBe(true);
    }
    expect(await index.admitRequest(tenantId, { bucket: "key_c", now: WINDOW + 59_000 })).toMatchObject({
      ok: false,
      code: "rate_limited",
      retryAfterSeconds: 1,
    });
  });

  it("keeps the counts of different tenants apart", async () => {
    const first = freshTenant();
    const second = freshTenant();
    await indexOf(first).setLimitOverrides(first, { requests_per_minute: 1 });
    await indexOf(second).setLimitOverrides(second, { requests_per_minute: 1 });
    expect((await indexOf(first).admitRequest(first, { bucket: "k", now: WINDOW })).ok).toBe(true);
    expect((await indexOf(second).admitRequest(second, { bucket: "k", now: WINDOW })).ok).toBe(true);
    expect((await indexOf(first).admitRequest(first, { bucket: "k", now: WINDOW })).ok).toBe(false);
  });
});

describe("RateLimiter", () => {
  it("does not count a refused request against the other windows", () => {
    const limiter = new RateLimiter();
    const a = { key: "a", limit: 1 };
    const b = { key: "b", limit: 1 };
    expect(limiter.take([a], WINDOW).ok).toBe(true);
    expect(limiter.take([a, b], WINDOW).ok).toBe(false);
    expect(limiter.take([b], WINDOW).ok).toBe(true);
  });

  it("says what is left of each window, each with its own limit", () => {
    const limiter = new RateLimiter();
    const windows = [
      { key: "wide", limit: 5 },
      { key: "narrow", limit: 2 },
    ];
    expect(limiter.take(windows, WINDOW + 20_000)).toEqual({ ok: true, remaining: [4, 1], resetSeconds: 40 });
    expect(limiter.take(windows, WINDOW + 20_000)).toEqual({ ok: true, remaining: [3, 0], resetSeconds: 40 });
    expect(limiter.take(windows, WINDOW + 59_500)).toEqual({ ok: false, remaining: [3, 0], resetSeconds: 1, retryAfterSeconds: 1 });
  });

  it("starts each window afresh at the minute, and answers a refusal with the seconds left in it", () => {
    const limiter = new RateLimiter();
    const window = { key: "w", limit: 3 };
    for (let i = 0; i < 3; i++) expect(limiter.take([window], WINDOW + i).ok).toBe(true);
    expect(limiter.take([window], WINDOW + 10_000)).toMatchObject({ ok: false, retryAfterSeconds: 50 });
    expect(limiter.take([window], WINDOW + 59_999)).toMatchObject({ ok: false, retryAfterSeconds: 1 });
    expect(limiter.take([window], WINDOW + RATE_WINDOW_MS)).toEqual({ ok: true, remaining: [2], resetSeconds: 60 });
  });
});

describe("RateLimiter and a late clock", () => {
  it("counts a request stamped in a minute already over in the one that began since, never resetting it", () => {
    const limiter = new RateLimiter();
    const window = { key: "tenant", limit: 3 };
    expect(limiter.take([window], WINDOW + RATE_WINDOW_MS + 1_000).ok).toBe(true);
    expect(limiter.take([window], WINDOW + RATE_WINDOW_MS + 2_000).ok).toBe(true);
    // Late: stamped in the minute before.
    const late = limiter.take([window], WINDOW + 59_500);
    expect(late).toMatchObject({ ok: true, remaining: [0] });
    const refused = limiter.take([window], WINDOW + RATE_WINDOW_MS + 3_000);
    expect(refused).toMatchObject({ ok: false, retryAfterSeconds: 57 });
    // A part lent late is counted in the newer minute too, and says which.
    expect(limiter.grant({ key: "exports", limit: 10 }, 4, WINDOW + RATE_WINDOW_MS, 1)).toEqual({
      granted: 4,
      remaining: 6,
      start: WINDOW + RATE_WINDOW_MS,
    });
    expect(limiter.grant({ key: "exports", limit: 10 }, 4, WINDOW + 30_000, 1)).toEqual({
      granted: 3,
      remaining: 3,
      start: WINDOW + RATE_WINDOW_MS,
    });
  });
});
