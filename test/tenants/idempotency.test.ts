import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from "../../src/tenants/idempotency-store";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { BASE_MS, freshTenant, indexOf } from "./helpers";

const SCOPE = "user-1 POST /v1/sessions";

describe("idempotency records", () => {
  it("answers new, then in_progress to a concurrent duplicate, then replays the stored response", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const begin = { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS };
    expect(await index.beginIdempotent(tenantId, begin)).toEqual({ state: "new" });
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + 1_000 })).toEqual({ state: "in_progress" });
    const body = { id: "ses_1", status: "running", nested: [1, "two", null] };
    expect(await index.completeIdempotent(tenantId, { scope: SCOPE, key: "k1", status: 201, body, now: BASE_MS + 2_000 })).toBe(true);
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + 3_000 })).toEqual({ state: "replay", status: 201, body });
  });

  it("answers conflict for the same key with a different body, in progress or completed", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS });
    expect(await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h2", now: BASE_MS })).toEqual({ state: "conflict" });
    await index.completeIdempotent(tenantId, { scope: SCOPE, key: "k1", status: 202, body: "accepted", now: BASE_MS });
    expect(await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h2", now: BASE_MS })).toEqual({ state: "conflict" });
    expect(await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS })).toEqual({
      state: "replay",
      status: 202,
      body: "accepted",
    });
  });

  it("keeps the same key of different scopes apart", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    expect(await index.beginIdempotent(tenantId, { scope: "user-1 POST /x", key: "k", bodyHash: "h", now: BASE_MS })).toEqual({
      state: "new",
    });
    expect(await index.beginIdempotent(tenantId, { scope: "user-2 POST /x", key: "k", bodyHash: "other", now: BASE_MS })).toEqual({
      state: "new",
    });
  });

  it("forgets a response after 24 hours", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS });
    await index.completeIdempotent(tenantId, { scope: SCOPE, key: "k1", status: 201, body: {}, now: BASE_MS });
    const justBefore = BASE_MS + IDEMPOTENCY_TTL_MS - 1;
    expect((await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: justBefore })).state).toBe("replay");
    expect(await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h2", now: BASE_MS + IDEMPOTENCY_TTL_MS })).toEqual({
      state: "new",
    });
  });

  it("purges expired records as new ones begin", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    for (let i = 0; i < 5; i++) await index.beginIdempotent(tenantId, { scope: SCOPE, key: `old-${i}`, bodyHash: "h", now: BASE_MS });
    await index.beginIdempotent(tenantId, { scope: SCOPE, key: "fresh", bodyHash: "h", now: BASE_MS + IDEMPOTENCY_TTL_MS + 1 });
    await runInDurableObject(index, async (_instance: TenantIndex, state) => {
      const keys = state.storage.sql
        .exec<{ key: string }>(`SELECT key FROM idempotency`)
        .toArray()
        .map((row) => row.key);
      expect(keys).toEqual(["fresh"]);
    });
  });

  it("lets a retry go ahead when the first request never completed", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const begin = { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS };
    await index.beginIdempotent(tenantId, begin);
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + IDEMPOTENCY_LOCK_MS - 1 })).toEqual({ state: "in_progress" });
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + IDEMPOTENCY_LOCK_MS })).toEqual({ state: "new" });
  });

  it("completes a record only once, and not one that was never begun", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const done = { scope: SCOPE, key: "k1", status: 201, body: { n: 1 }, now: BASE_MS };
    expect(await index.completeIdempotent(tenantId, done)).toBe(false);
    await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS });
    expect(await index.completeIdempotent(tenantId, done)).toBe(true);
    expect(await index.completeIdempotent(tenantId, { ...done, body: { n: 2 } })).toBe(false);
    expect(await index.beginIdempotent(tenantId, { scope: SCOPE, key: "k1", bodyHash: "h1", now: BASE_MS })).toEqual({
      state: "replay",
      status: 201,
      body: { n: 1 },
    });
  });

  it("releases a begun key so a retry runs at once, but never a completed one", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const begin = { scope: SCOPE, key: "k-release", bodyHash: "h1", now: BASE_MS };
    expect(await index.beginIdempotent(tenantId, begin)).toEqual({ state: "new" });
    expect(await index.releaseIdempotent(tenantId, { scope: SCOPE, key: "k-release" })).toBe(true);
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + 1_000 })).toEqual({ state: "new" });
    await index.completeIdempotent(tenantId, { scope: SCOPE, key: "k-release", status: 201, body: { ok: 1 }, now: BASE_MS + 2_000 });
    expect(await index.releaseIdempotent(tenantId, { scope: SCOPE, key: "k-release" })).toBe(false);
    expect(await index.beginIdempotent(tenantId, { ...begin, now: BASE_MS + 3_000 })).toMatchObject({ state: "replay", status: 201 });
  });
});
