import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { cancelEach } from "../../src/tenants/bulk-cancel";
import { activeSessionIds } from "../../src/tenants/sessions-store";
import { effectiveLimits } from "../../src/tenants/tenant-config";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { BASE_MS, expectIndexRejects, freshTenant, indexOf, report } from "./helpers";

describe("limit overrides", () => {
  it("starts with no overrides and the platform defaults as effective limits", async () => {
    const tenantId = freshTenant();
    const config = await indexOf(tenantId).getConfig(tenantId);
    expect(config).toMatchObject({ tenant_id: tenantId, suspended: false, limit_overrides: {} });
    expect(config.effective_limits).toEqual(loadConfig(env).defaultLimits);
    expect(Date.parse(config.created_at)).toBeGreaterThan(0);
  });

  it("replaces the overrides as a whole and merges them over the defaults", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { max_concurrent_runs: 3, max_tokens_per_day: 1000 });
    const config = await index.setLimitOverrides(tenantId, { max_steps_per_run: 5, max_tokens_per_day: null });
    expect(await index.getLimitOverrides(tenantId)).toEqual({ max_steps_per_run: 5, max_tokens_per_day: null });
    expect(config.effective_limits).toEqual({ ...loadConfig(env).defaultLimits, max_steps_per_run: 5, max_tokens_per_day: null });
    expect((await index.getConfig(tenantId)).effective_limits.max_concurrent_runs).toBe(loadConfig(env).defaultLimits.max_concurrent_runs);
    const admitted = await index.admitRequest(tenantId, { bucket: "key_1", now: BASE_MS });
    expect(admitted).toEqual({
      ok: true,
      suspended: false,
      limits: config.effective_limits,
      settings: { webhook_origins: null, session_retention_days: null, traces: null },
      shards: { generation: 0, shards: 1 },
      rate: expect.any(Object),
    });
  });

  it("refuses unknown limit names and out-of-range values", async () => {
    const tenantId = freshTenant();
    await expectIndexRejects(tenantId, (index) => index.setLimitOverrides(tenantId, { max_steps: 5 } as never), /overrides/);
    await expectIndexRejects(tenantId, (index) => index.setLimitOverrides(tenantId, { max_steps_per_run: 0 }), /max_steps_per_run/);
    expect(await indexOf(tenantId).getLimitOverrides(tenantId)).toEqual({});
  });

  it("effectiveLimits lets each override replace only its own default", () => {
    expect(effectiveLimits(BUILTIN_DEFAULT_LIMITS, {})).toEqual(BUILTIN_DEFAULT_LIMITS);
    expect(effectiveLimits(BUILTIN_DEFAULT_LIMITS, { requests_per_minute: 5, max_tokens_per_day: 10 })).toEqual({
      ...BUILTIN_DEFAULT_LIMITS,
      requests_per_minute: 5,
      max_tokens_per_day: 10,
    });
  });
});

describe("suspension", () => {
  it("refuses every request while suspended and admits again after unsuspend", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    expect((await index.admitRequest(tenantId, { bucket: "u", now: BASE_MS })).ok).toBe(true);
    expect(await index.suspend(tenantId)).toEqual({ cancelled: 0 });
    expect(await index.admitRequest(tenantId, { bucket: "u", now: BASE_MS })).toEqual({ ok: false, code: "suspended" });
    expect((await index.getConfig(tenantId)).suspended).toBe(true);
    await index.unsuspend(tenantId);
    expect((await index.admitRequest(tenantId, { bucket: "u", now: BASE_MS })).ok).toBe(true);
    expect((await index.getConfig(tenantId)).suspended).toBe(false);
  });

  it("still suspends when the session objects of its active sessions cannot be reached, counting no cancellation", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_1", { status: "running" }));
    await index.reportSession(tenantId, report("ses_2", { status: "paused" }));
    // These sessions have no session object storage, so no cancel can succeed: none may be counted.
    expect(await index.suspend(tenantId)).toEqual({ cancelled: 0 });
    expect(await index.admitRequest(tenantId, { bucket: "u", now: BASE_MS })).toEqual({ ok: false, code: "suspended" });
  });

  it("keeps the flag across a restart of the object", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.suspend(tenantId);
    await runInDurableObject(index, async (_instance: TenantIndex, state) => {
      expect(state.storage.kv.get("suspended")).toBe(true);
    });
  });
});

describe("cancelSessions", () => {
  it("selects only active sessions matching the status and creator filter", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.reportSession(tenantId, report("ses_a", { status: "running", created_by: "alice" }));
    await index.reportSession(tenantId, report("ses_b", { status: "paused", created_by: "alice" }));
    await index.reportSession(tenantId, report("ses_c", { status: "running", created_by: "bob" }));
    await index.reportSession(tenantId, report("ses_d", { status: "done", created_by: "alice" }));
    await index.reportSession(tenantId, report("ses_e", { status: "idle", created_by: "alice" }));
    await runInDurableObject(index, async (_instance: TenantIndex, state) => {
      const sql = state.storage.sql;
      expect(activeSessionIds(sql, {}).sort()).toEqual(["ses_a", "ses_b", "ses_c"]);
      expect(activeSessionIds(sql, { created_by: "alice" }).sort()).toEqual(["ses_a", "ses_b"]);
      expect(activeSessionIds(sql, { status: "running" }).sort()).toEqual(["ses_a", "ses_c"]);
      expect(activeSessionIds(sql, { status: "running", created_by: "bob" })).toEqual(["ses_c"]);
      expect(activeSessionIds(sql, { status: "done" })).toEqual([]);
    });
    expect(await index.cancelSessions(tenantId, { created_by: "alice" })).toEqual({ cancelled: 0 });
    expect((await index.admitRequest(tenantId, { bucket: "u", now: BASE_MS })).ok).toBe(true);
  });

  it("cancelEach counts successes only and carries on past failures", async () => {
    const asked: string[] = [];
    const cancelled = await cancelEach(["a", "b", "c", "d", "e"], async (id) => {
      asked.push(id);
      if (id === "b") throw new Error("agent unreachable");
      if (id === "d") return { ok: false, code: "conflict" };
      return { ok: true };
    });
    expect(cancelled).toBe(3);
    expect(asked.sort()).toEqual(["a", "b", "c", "d", "e"]);
  });
});
