/**
 * What a session's report is answered with (src/tenants/tenant-index/sessions.ts): today's spend
 * for the daily budgets the tenant has and those the session's own limits hold. A part no budget
 * counts is not read: a tenant without a cost budget no longer prices its whole day's rollup at
 * every report of every session.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { freshTenant, indexOf, report } from "./helpers";
import { loadConfig } from "../../src/config";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { spendOnDay } from "../../src/tenants/usage-rollup";

const usage = (tokens: number) => ({ steps: 1, input_tokens: tokens, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 });
const NOTHING = { cost: false, subject: false, key: false };

/** Sessions of `models.length` models, each with `tokens` input tokens, reported today. */
async function spendToday(tenantId: string, models: readonly string[], tokens: number): Promise<void> {
  const index = indexOf(tenantId);
  const now = Date.now();
  for (const [i, model] of models.entries())
    await index.reportSession(tenantId, report(`ses_${i}`, { status: "done", usage: usage(tokens), model, createdMs: now }));
}

describe("the spend a report is answered with", () => {
  it("is read only for the budgets the tenant has: 0 without them, the day's figures with them", async () => {
    const tenantId = freshTenant();
    const models = ["claude-sonnet-4-5", "claude-haiku-4-5", "gpt-4o"];
    await spendToday(tenantId, models, 1_000_000);
    const index = indexOf(tenantId);
    let revision = 0;
    const next = (daily_budgets?: { cost: boolean; subject: boolean }) =>
      index.reportSession(
        tenantId,
        report("ses_new", { status: "running", revision: ++revision, createdMs: Date.now(), ...(daily_budgets ? { daily_budgets } : {}) }),
      );
    const none = { cost: false, subject: false };
    expect((await next(none)).spend).toEqual({ cost_usd: 0, subject_tokens: 0, key_tokens: 0, key_max_tokens_per_day: null });

    // The session's own limits may hold a budget the tenant does not; a session of older code says nothing, and gets every part.
    for (const own of [{ cost: true, subject: true }, undefined]) {
      const { spend } = await next(own);
      expect(spend?.subject_tokens).toBe(3_000_000);
      // Three priced models' million input tokens each: more than nothing, whatever today's prices.
      expect(spend?.cost_usd).toBeGreaterThan(0);
    }
    expect((await next({ cost: false, subject: true })).spend).toMatchObject({ cost_usd: 0, subject_tokens: 3_000_000 });

    await index.setLimitOverrides(tenantId, { max_cost_usd_per_day: 1_000, max_tokens_per_day_per_subject: 10_000_000 });
    const { spend } = await next(none);
    expect(spend?.subject_tokens).toBe(3_000_000);
    expect(spend?.cost_usd).toBeGreaterThan(0);
  });

  it("runs no query at all when no budget counts, however many models the day holds", async () => {
    const tenantId = freshTenant();
    await spendToday(
      tenantId,
      Array.from({ length: 40 }, (_, i) => `model-${i}`),
      10,
    );
    await runInDurableObject(indexOf(tenantId), (_instance: TenantIndex, state) => {
      const statements: string[] = [];
      const sql = new Proxy(state.storage.sql, {
        get: (target, name) =>
          name === "exec"
            ? (query: string, ...bindings: unknown[]) => {
                statements.push(query);
                return target.exec(query, ...bindings);
              }
            : Reflect.get(target, name),
      });
      const prices = loadConfig(env).prices;
      expect(spendOnDay(sql, Date.now(), "user-1", "key_1", prices, NOTHING)).toEqual({ cost_usd: 0, subject_tokens: 0, key_tokens: 0 });
      expect(statements).toEqual([]);
      const all = spendOnDay(sql, Date.now(), "user-1", "key_1", prices, { cost: true, subject: true, key: true });
      expect(all.subject_tokens).toBe(400);
      expect(statements).toHaveLength(3);
    });
  });
});
