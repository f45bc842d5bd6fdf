/**
 * What a sharded tenant's daily budget costs its index: counted at the index itself (its methods
 * spied on the prototype, only this tenant's index), over a burst of runs on four shards, each a
 * few tool steps long. A budgeted start asks the index once; the steps and reports ask it nothing;
 * the runs' ends reach it in pushes that a busy shard makes one at a time.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, type MockInstance, vi } from "vitest";
import { tenantIndexName, tenantIndexStub } from "../../src/objects";
import { eventually } from "../api/subagents/helpers";
import { TenantIndex } from "../../src/tenants/tenant-index";
import { callJson } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import { caller, createSession, waitForStatus } from "../api/sessions/helpers";
import { answer, GET_TIME, toolLoop } from "../api/usage/helpers";

const RUNS = 40;
const STEP = { input_tokens: 10, output_tokens: 5 };

afterEach(() => vi.restoreAllMocks());

/** Calls of each index method made on `tenantId`'s index from now on. */
function countIndexCalls(tenantId: string): () => Record<string, number> {
  const id = env.TENANT_INDEX.idFromName(tenantIndexName(tenantId));
  const spies = Object.getOwnPropertyNames(TenantIndex.prototype)
    .filter((name) => name !== "constructor" && name !== "alarm")
    .map((name) => [name, vi.spyOn(TenantIndex.prototype, name as keyof TenantIndex)] as const);
  return () => {
    const counts: Record<string, number> = {};
    for (const [name, spy] of spies as (readonly [string, MockInstance])[]) {
      const n = spy.mock.contexts.filter((self) => (self as { ctx: DurableObjectState }).ctx.id.equals(id)).length;
      if (n > 0) counts[name] = n;
    }
    return counts;
  };
}

describe("a sharded tenant's daily budget, at its index", () => {
  it("costs one call per start and none per step, and its runs' ends come in pushes", async () => {
    const who = await caller();
    const admin = await bearer({ tenantId: freshTenant("ops-budget-calls"), subject: "ops-1", scopes: ["platform:admin"] });
    expect((await callJson(`/v1/admin/tenants/${who.tenantId}/shards`, "PUT", { shards: 4 }, admin)).status).toBe(200);
    const limits = { max_tokens_per_day: 10_000_000, max_concurrent_runs: 4 * RUNS };
    expect((await callJson(`/v1/admin/tenants/${who.tenantId}/limits`, "PUT", limits, admin)).status).toBe(200);
    const models = await Promise.all(
      Array.from({ length: RUNS }, async (_, i) => {
        const model = mockModel(uniqueKey(`m${i}`));
        await model.script(toolLoop(`toolu_${i}_a`, STEP), toolLoop(`toolu_${i}_b`, STEP), answer(STEP));
        return model.key;
      }),
    );
    const counted = countIndexCalls(who.tenantId);
    const ids = await Promise.all(models.map(async (model) => (await createSession(who, { input: "go", model, tools: GET_TIME })).id));
    for (const id of ids) await waitForStatus(who, id, ["done"], 20_000);
    const calls = counted();
    console.log(`index calls for ${RUNS} budgeted runs of 3 steps on 4 shards: ${JSON.stringify(calls)}`);
    // The request admissions (`admissionView`, `leaseRate`) and slot leases are the shards' usual few.
    expect(calls.reportSession ?? 0).toBe(0);
    // One per start, and the ends in fewer pushes than runs (each shard's runs end close together here).
    expect(calls.shardSpend ?? 0).toBeGreaterThanOrEqual(RUNS);
    expect(calls.shardSpend ?? 0).toBeLessThanOrEqual(2 * RUNS + 8);
    // Every run's end reached the index: no reservation is left held.
    await eventually(
      () =>
        runInDurableObject(
          tenantIndexStub(env, who.tenantId),
          (_instance, state) => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM budget_reservations`).one().n,
        ),
      (n) => n === 0,
    );
  });
});
