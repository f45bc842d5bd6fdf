/**
 * A sharded tenant's requests admitted by the shard their caller hashes to, not by its index
 * (src/tenants/shards/admission.ts): each caller's window counted exactly on its shard, the
 * tenant's window lent to the shards in parts and never exceeded, the admins' reserve kept, and
 * revocations, suspension and a change of limits in force at once through the public API.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { adminReservedRequests, callerRequestsPerMinute } from "../../src/limits";
import { tenantIndexStub, tenantShardStub } from "../../src/objects";
import { shardFor, type ShardLayout } from "../../src/shared/shard-layout";
import { RATE_WINDOW_MS } from "../../src/tenants/rate-limit";
import { TenantShard } from "../../src/tenants/shards/shard";
import { TenantIndex } from "../../src/tenants/tenant-index";
import { call, callJson } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";
import { backend, endUser } from "../api/end-users/helpers";
import { issuedKey } from "../support/api-keys";
import { keyBucket } from "../../src/auth/principal";

/** The start of a one-minute window, far from now, so the clock of the test run cannot move it. */
const WINDOW = Math.floor(Date.UTC(2031, 4, 2, 9, 0, 0) / RATE_WINDOW_MS) * RATE_WINDOW_MS;

afterEach(() => vi.restoreAllMocks());

/** A tenant of `requests_per_minute` 400 on 4 shards, admitting through the shards' RPC at a fixed clock. */
async function shardedTenant() {
  const tenantId = freshTenant("shard-rate");
  const index = tenantIndexStub(env, tenantId);
  await index.setLimitOverrides(tenantId, { requests_per_minute: 400 });
  const layout: ShardLayout = await index.setShards(tenantId, 4);
  const { effective_limits: limits } = await index.getConfig(tenantId);
  const admit = async (bucket: string, now: number, scopes: string[] = []) => {
    const ref = shardFor(bucket, layout)!;
    return (await tenantShardStub(env, tenantId, ref).admitRequest(tenantId, ref, { bucket, now, scopes })).ok;
  };
  return { tenantId, layout, limits, admit };
}

describe("the rate windows of a sharded tenant", () => {
  it("lends the tenant's window to its shards in parts, never past the limit, and keeps the admins' reserve", async () => {
    const { layout, limits, admit } = await shardedTenant();
    const leases = vi.spyOn(TenantIndex.prototype, "leaseRate");
    const onIndex = vi.spyOn(TenantIndex.prototype, "admitRequest");
    const buckets = Array.from({ length: 16 }, (_, i) => `sub:caller-${i}`);
    expect(new Set(buckets.map((bucket) => shardFor(bucket, layout)!.k)).size).toBe(4);
    const now = WINDOW + 1_000;
    let admitted = 0;
    for (let round = 0; round < 1_000; round++) {
      let inRound = 0;
      for (const bucket of buckets) if (await admit(bucket, now)) inRound += 1;
      admitted += inRound;
      if (inRound === 0) break;
    }
    const cap = limits.requests_per_minute - adminReservedRequests(limits);
    // Exactly the window less the reserve: every part lent was used, none past it.
    expect(admitted).toBe(cap);
    expect(onIndex).not.toHaveBeenCalled();
    // In parts: far fewer calls to the index than requests.
    expect(leases.mock.calls.length).toBeGreaterThan(0);
    expect(leases.mock.calls.length).toBeLessThan(admitted / 5);
    // An admin still has the reserve, and no more.
    let reserve = 0;
    for (let i = 0; i < 100; i++) if (await admit("sub:admin", now, ["tenant:admin"])) reserve += 1;
    expect(reserve).toBe(adminReservedRequests(limits));
  });

  it("admits a burst at once while the window has room, and no more than the window in a burst past it", async () => {
    const { layout, limits, admit } = await shardedTenant();
    const buckets = Array.from({ length: 8 }, (_, i) => `key:burst-${i}`);
    const burst = async (now: number, each: number) => {
      const all = buckets.flatMap((bucket) => Array.from({ length: each }, () => admit(bucket, now)));
      return (await Promise.all(all)).filter(Boolean).length;
    };
    expect(new Set(buckets.map((bucket) => shardFor(bucket, layout)!.k)).size).toBeGreaterThan(1);
    // 80 at once, a fifth of the window: every one admitted, none refused while parts were borrowed.
    expect(await burst(WINDOW + 10 * RATE_WINDOW_MS + 1_000, 10)).toBe(80);
    // 800 at once in a fresh window: exactly the window less the reserve.
    expect(await burst(WINDOW + 11 * RATE_WINDOW_MS + 1_000, 100)).toBe(limits.requests_per_minute - adminReservedRequests(limits));
  });

  it("takes any limit a platform admin may set, and refuses a window used up without asking the index again", async () => {
    const tenantId = freshTenant("shard-big");
    const index = tenantIndexStub(env, tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 50_000_000 });
    const layout = await index.setShards(tenantId, 2);
    const ref = shardFor("key:big", layout)!;
    const shard = tenantShardStub(env, tenantId, ref);
    expect((await shard.admitRequest(tenantId, ref, { bucket: "key:big", now: WINDOW + 1_000, scopes: [] })).ok).toBe(true);

    const { admit } = await shardedTenant();
    const now = WINDOW + 20 * RATE_WINDOW_MS + 1_000;
    await Promise.all(
      Array.from({ length: 16 }, (_, i) => `sub:drain-${i}`).flatMap((bucket) => Array.from({ length: 40 }, () => admit(bucket, now))),
    );
    const leases = vi.spyOn(TenantIndex.prototype, "leaseRate");
    for (let i = 0; i < 20; i++) expect(await admit(`sub:late-${i}`, now)).toBe(false);
    // Each shard heard the window was used up once, at most: refusals cost the index nothing.
    expect(leases.mock.calls.length).toBeLessThanOrEqual(4);
  });

  it("counts each caller's share exactly on the shard it hashes to, and starts again with the next window", async () => {
    const { limits, admit } = await shardedTenant();
    const share = callerRequestsPerMinute(limits);
    const count = async (bucket: string, now: number, times: number) => {
      let n = 0;
      for (let i = 0; i < times; i++) if (await admit(bucket, now)) n += 1;
      return n;
    };
    const next = WINDOW + 5 * RATE_WINDOW_MS + 1_000;
    expect(await count("key:flood", next, share + 20)).toBe(share);
    expect(await count("key:other", next, 3)).toBe(3);
    expect(await count("key:flood", next + RATE_WINDOW_MS, 2)).toBe(2);
  });
});

describe("a sharded tenant's requests through the gateway", () => {
  const platformAdmin = () => bearer({ tenantId: freshTenant("ops-admit"), subject: "ops-1", scopes: ["platform:admin"] });

  it("are admitted by the shards, and a revoked key, a suspension and new limits count at once", async () => {
    const tenantId = freshTenant("shard-gate");
    const ops = await platformAdmin();
    const admin = await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"] });
    expect((await callJson(`/v1/admin/tenants/${tenantId}/shards`, "PUT", { shards: 4 }, ops)).status).toBe(200);
    const created = await callJson("/v1/api-keys", "POST", { name: "backend", scopes: ["sessions:read"] }, admin);
    expect(created.status).toBe(201);
    const { key_id: keyId, key } = (await created.json()) as { key_id: string; key: string };
    const byKey = { Authorization: `Bearer ${key}` };
    const status = async (headers: Record<string, string>) => {
      const res = await call("/v1/tenant", { headers });
      await res.body?.cancel();
      return res.status;
    };

    const onShards = vi.spyOn(TenantShard.prototype, "admitApiKey");
    // The gateway learns the layout from an admission; from then on the key's shard admits it.
    expect(await status(byKey)).toBe(200);
    expect(await status(byKey)).toBe(200);
    expect(onShards).toHaveBeenCalled();

    // Each change is told to the shards before it is answered, not left to their copies' age.
    const told = vi.spyOn(TenantShard.prototype, "admissionChanged");
    const heard = vi.spyOn(TenantShard.prototype, "tenantSuspended");
    expect((await call(`/v1/api-keys/${keyId}`, { method: "DELETE", headers: admin })).status).toBe(204);
    expect(told.mock.calls.map((args) => args[2])).toContainEqual({ keyId });
    expect(await status(byKey)).toBe(401);

    expect((await call(`/v1/admin/tenants/${tenantId}/suspend`, { method: "POST", headers: ops })).status).toBe(200);
    expect(heard).toHaveBeenCalled();
    expect(await status(admin)).toBe(403);
    expect((await call(`/v1/admin/tenants/${tenantId}/unsuspend`, { method: "POST", headers: ops })).status).toBe(200);
    expect(await status(admin)).toBe(200);

    told.mockClear();
    expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { requests_per_minute: 123 }, ops)).status).toBe(200);
    expect(told.mock.calls.map((args) => args[2])).toContainEqual({ config: true });
    const res = await call("/v1/tenant", { headers: admin });
    await res.body?.cancel();
    expect(res.headers.get("RateLimit-Policy")).toContain("q=123");

    // A key that names nothing is a 401 from the shard, and binds nothing there.
    const unknown = await issuedKey(tenantId);
    expect(await status({ Authorization: `Bearer ${unknown.plaintext}` })).toBe(401);
    const ref = shardFor(keyBucket(unknown.keyId), { generation: 1, shards: 4 })!;
    expect((await tenantShardStub(env, tenantId, ref).footprint()).rows).toBe(0);

    // A deleted tenant's token is refused by the shards too.
    expect((await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers: ops })).status).toBe(202);
    expect(await status(admin)).toBe(403);
  });

  it("answers 429 with the tenant's window through a shard", async () => {
    const ops = await platformAdmin();
    const tenantId = freshTenant("shard-429");
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { requests_per_minute: 10 });
    expect((await callJson(`/v1/admin/tenants/${tenantId}/shards`, "PUT", { shards: 4 }, ops)).status).toBe(200);
    const user = await bearer({ tenantId, subject: "user-1", scopes: ["sessions:read"] });
    const onShards = vi.spyOn(TenantShard.prototype, "admitRequest");
    const statuses: number[] = [];
    // 12: even across a minute's end, 1 on the index (before the layout is known) and 5 + 5 on the shard leave one refused.
    for (let i = 0; i < 12; i++) {
      const res = await call("/v1/tenant", { headers: user });
      await res.body?.cancel();
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
        expect(res.headers.get("RateLimit")).toMatch(/caller/);
      }
    }
    // The caller's share of 10 is 5, whichever minute the requests fell in.
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(5);
    expect(statuses).toContain(429);
    expect(onShards).toHaveBeenCalled();
  });

  it("refuses an end user's revoked token at once", async () => {
    const told = vi.spyOn(TenantShard.prototype, "admissionChanged");
    const ops = await platformAdmin();
    const who = await backend(freshTenant("shard-eu"));
    expect((await callJson(`/v1/admin/tenants/${who.tenantId}/shards`, "PUT", { shards: 4 }, ops)).status).toBe(200);
    const alice = await endUser(who, "alice");
    for (let i = 0; i < 2; i++) expect((await call("/v1/me", { headers: alice.headers })).status).toBe(200);
    expect((await call("/v1/end-users/alice/revoke-tokens", { method: "POST", headers: who.headers })).status).toBe(204);
    expect(told.mock.calls.map((args) => args[2])).toContainEqual({ endUser: "alice" });
    expect((await call("/v1/me", { headers: alice.headers })).status).toBe(401);
  });
});
