/**
 * Budget reservations in the tenant index (src/tenants/budget-reservations.ts): a run admitted
 * under a daily token budget holds its worst case until it ends; what it spends meanwhile takes
 * the place of what it holds, never both; and a reservation counts only on the day it was made.
 */
import { describe, expect, it } from "vitest";
import { DAY_MS, freshTenant, indexOf, report } from "./helpers";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { runRefused } from "../../src/sessions/run-admission";
import { RUN_SLOT_RETRY_AFTER_SECONDS } from "../../src/tenants/run-slots";
import { secondsToNextUtcDay } from "../../src/usage/budgets";

const run = (sessionId: string, now: number, fields: Record<string, unknown> = {}) => ({
  sessionId,
  maxConcurrent: 10,
  maxTokensPerDay: 1000,
  createdBy: "user-1",
  reserveTokens: 600,
  now,
  ...fields,
});

const spent = (tokens: number) => ({ steps: 1, input_tokens: tokens, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 });

describe("budget reservations", () => {
  it("count what a run has not spent yet: its spend replaces its reservation as it goes, and its end settles it", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const now = Date.now();
    expect((await index.admitRun(tenantId, run("ses_a", now))).ok).toBe(true);
    // 600 held of 1,000: a second run of 600 still starts (the budget is not reached yet), a third not.
    await index.reportSession(tenantId, report("ses_a", { status: "running", revision: 1, usage: spent(500), createdMs: now }));
    // ses_a: 500 spent and 100 still held; 600 in all, as before it spent.
    expect((await index.admitRun(tenantId, run("ses_b", now))).ok).toBe(true);
    expect(await index.admitRun(tenantId, run("ses_c", now))).toMatchObject({ ok: false, code: "budget_used" });
    // ses_a ends having spent 500: nothing more held for it. 500 + ses_b's 600 still reach 1,000.
    await index.reportSession(tenantId, report("ses_a", { status: "done", revision: 2, usage: spent(500), createdMs: now }));
    expect(await index.admitRun(tenantId, run("ses_c", now))).toMatchObject({ ok: false, code: "budget_used" });
    // ses_b is deleted before it spent anything: its reservation goes with it.
    await index.removeSession(tenantId, "ses_b");
    expect((await index.admitRun(tenantId, run("ses_c", now))).ok).toBe(true);
  });

  it("hold nothing on the next UTC day, and nothing without a token budget to guard", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const now = Date.now();
    expect((await index.admitRun(tenantId, run("ses_a", now, { reserveTokens: 5_000 }))).ok).toBe(true);
    expect(await index.admitRun(tenantId, run("ses_b", now))).toMatchObject({ ok: false, code: "budget_used" });
    expect((await index.admitRun(tenantId, run("ses_b", now + DAY_MS))).ok).toBe(true);
    // No budget: nothing is reserved, so a budget set later sees none of it.
    const other = freshTenant();
    const unbudgeted = indexOf(other);
    expect((await unbudgeted.admitRun(other, run("ses_x", now, { maxTokensPerDay: null, reserveTokens: 5_000 }))).ok).toBe(true);
    expect((await unbudgeted.admitRun(other, run("ses_y", now))).ok).toBe(true);
  });

  it("refuse a start the reservations alone fill with a short retry, and one the spend fills until midnight", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const now = Date.now();
    expect((await index.admitRun(tenantId, run("ses_a", now))).ok).toBe(true);
    expect((await index.admitRun(tenantId, run("ses_b", now))).ok).toBe(true);
    // Nothing spent, 1,200 held: the runs going settle soon, so the retry is a busy slot's.
    const held = await index.admitRun(tenantId, run("ses_c", now));
    expect(held).toMatchObject({ ok: false, code: "budget_used", held: true, retryAfterSeconds: RUN_SLOT_RETRY_AFTER_SECONDS });
    if (held.ok) throw new Error("admitted");
    const problem = runRefused(held, BUILTIN_DEFAULT_LIMITS);
    expect(problem.status).toBe(429);
    expect(problem.detail).toMatch(/Runs in progress hold the rest of the tenant's daily token budget/);
    // Spent in full: the budget renews at midnight, whatever is held.
    await index.reportSession(tenantId, report("ses_a", { status: "done", revision: 1, usage: spent(1000), createdMs: now }));
    const spentUp = await index.admitRun(tenantId, run("ses_c", now));
    expect(spentUp).toMatchObject({ ok: false, code: "budget_used", retryAfterSeconds: secondsToNextUtcDay(now) });
    expect(spentUp).not.toHaveProperty("held");
  });

  it("are kept when a resume's or an approval's slot claim is given back, and go with a start that failed", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const now = Date.now();
    expect((await index.admitRun(tenantId, run("ses_a", now))).ok).toBe(true);
    // A claim refused for ses_a's waiting run: its slot goes, its 600 stay held.
    await index.releaseRun(tenantId, "ses_a");
    expect((await index.admitRun(tenantId, run("ses_b", now))).ok).toBe(true);
    expect(await index.admitRun(tenantId, run("ses_c", now))).toMatchObject({ ok: false, code: "budget_used", held: true });
    // ses_b's start failed: its reservation goes with its slot.
    await index.releaseRun(tenantId, "ses_b", true);
    expect((await index.admitRun(tenantId, run("ses_c", now))).ok).toBe(true);
  });
});
