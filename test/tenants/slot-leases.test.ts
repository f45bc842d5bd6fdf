/**
 * The run slots the index lends its shards, called as the session objects call them: a shard's
 * spare slots go back to the index's own sessions and to a lowered limit, a repeated request is
 * answered as recorded, and the tenant never holds more slots than its limit.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantShardStub } from "../../src/objects";
import { BASE_MS, freshTenant, indexOf, report } from "./helpers";

const ref = { generation: 1, shards: 2, k: 0 };

async function ledger(tenantId: string): Promise<Record<string, number>> {
  return runInDurableObject(indexOf(tenantId), (_instance, state) =>
    Object.fromEntries(
      state.storage.sql
        .exec<{ shard: string; leased: number }>(`SELECT shard, leased FROM slot_leases`)
        .toArray()
        .map((row) => [row.shard, row.leased]),
    ),
  );
}

describe("the run slots lent to shards", () => {
  it("takes a shard's spares back for the index's own session, and never lends more than the limit", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 4 });
    await index.setShards(tenantId, 2);
    const shard = tenantShardStub(env, tenantId, ref);
    const now = Date.now();
    expect(await shard.acquireRun(tenantId, ref, "ses_s1", now)).toEqual({ ok: true });
    // One run and spares: the whole room of 4.
    expect(await ledger(tenantId)).toEqual({ "1/0": 4 });
    // A session of the index (made before the tenant was sharded) takes a slot the shard does not use.
    await index.reportSession(tenantId, report("ses_own", { status: "idle", createdMs: BASE_MS }));
    expect(await index.acquireRun(tenantId, "ses_own", 4, now)).toEqual({ ok: true });
    expect((await ledger(tenantId))["1/0"]).toBe(1);
    // The shard grows again only into what is free: 2 more runs, and the fifth is refused.
    expect(await shard.acquireRun(tenantId, ref, "ses_s2", now)).toEqual({ ok: true });
    expect(await shard.acquireRun(tenantId, ref, "ses_s3", now)).toEqual({ ok: true });
    expect(await shard.acquireRun(tenantId, ref, "ses_s4", now)).toMatchObject({ ok: false, code: "busy" });
    expect((await ledger(tenantId))["1/0"]).toBe(3);
  });

  it("takes every shard's spares back when the limit is lowered, so no shard admits past it", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 10 });
    await index.setShards(tenantId, 2);
    const shard = tenantShardStub(env, tenantId, ref);
    const now = Date.now();
    expect(await shard.acquireRun(tenantId, ref, "ses_a", now)).toEqual({ ok: true });
    expect(await ledger(tenantId)).toEqual({ "1/0": 5 });
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 2 });
    expect(await ledger(tenantId)).toEqual({ "1/0": 1 });
    expect(await shard.acquireRun(tenantId, ref, "ses_b", now)).toEqual({ ok: true });
    expect(await shard.acquireRun(tenantId, ref, "ses_c", now)).toMatchObject({ ok: false, code: "busy" });
    expect((await ledger(tenantId))["1/0"]).toBe(2);
  });

  it("answers a request number it applied already with what it recorded, and grants it once", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 6 });
    await index.setShards(tenantId, 2);
    const first = await index.leaseSlots(tenantId, "1/0", 1, 4, 1);
    expect(first).toMatchObject({ leased: 4, seq: 1, suspended: false });
    // The same number again (its answer was lost): the same lease, not 4 more.
    expect(await index.leaseSlots(tenantId, "1/0", 1, 4, 1)).toMatchObject({ leased: 4, seq: 1 });
    // Another shard gets what is left, and no more.
    expect(await index.leaseSlots(tenantId, "1/1", 1, 5, 1)).toMatchObject({ leased: 2, seq: 1 });
    expect(Object.values(await ledger(tenantId)).reduce((a, b) => a + b, 0)).toBe(6);
  });

  it("refuses a change of the count that would make every read ask more than 256 shards", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    for (const shards of [64, 63, 64, 63]) await index.setShards(tenantId, shards);
    await runInDurableObject(index, async (instance) => {
      await expect(instance.setShards(tenantId, 3)).rejects.toThrow(/257 shards, more than 256/);
    });
    expect((await index.setShards(tenantId, 1)).generation).toBe(5);
  });

  it("holds two busy shards to a lowered limit: the one whose runs fill it is told its lease is gone, and neither admits more", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 10 });
    await index.setShards(tenantId, 2);
    const a = { ...ref, k: 0 };
    const b = { ...ref, k: 1 };
    const now = Date.now();
    for (let i = 0; i < 5; i++)
      expect(await tenantShardStub(env, tenantId, a).acquireRun(tenantId, a, `ses_a${i}`, now)).toEqual({ ok: true });
    for (let i = 0; i < 4; i++)
      expect(await tenantShardStub(env, tenantId, b).acquireRun(tenantId, b, `ses_b${i}`, now)).toEqual({ ok: true });
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 4 });
    const lent = await ledger(tenantId);
    expect(lent["1/0"]! + lent["1/1"]!).toBeLessThanOrEqual(4);
    expect(await tenantShardStub(env, tenantId, a).acquireRun(tenantId, a, "ses_a5", now)).toMatchObject({ ok: false, code: "busy" });
    expect(await tenantShardStub(env, tenantId, b).acquireRun(tenantId, b, "ses_b4", now)).toMatchObject({ ok: false, code: "busy" });
    const after = await ledger(tenantId);
    expect(after["1/0"]! + after["1/1"]!).toBeLessThanOrEqual(4);
  });
});
