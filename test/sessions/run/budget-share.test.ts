import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { capToShare, childBudget, reshare } from "../../../src/sessions/object/subagents/budget-share";
import { raised, raisedDailyBudgets } from "../../../src/tenants/budget-waits";
import { budgetRenewed } from "../../../src/sessions/object/control/budget-wait";
import type { RunState } from "../../../src/sessions/object/store/store";

describe("a child's share of its parent's budgets", () => {
  it.each([
    [
      "one child takes what is left",
      { max_tokens_per_session: 100, max_cost_usd_per_session: null },
      { tokens: 10, costUsd: 0 },
      1,
      90,
      null,
    ],
    [
      "children started together split it",
      { max_tokens_per_session: 100, max_cost_usd_per_session: null },
      { tokens: 10, costUsd: 0 },
      2,
      45,
      null,
    ],
    ["the cost budget too", { max_tokens_per_session: 1000, max_cost_usd_per_session: 1 }, { tokens: 0, costUsd: 0.5 }, 2, 500, 0.25],
  ] as const)("%s", (_name, parent, spent, open, tokens, cost) => {
    expect(childBudget(parent, spent, open)).toEqual({ max_tokens_per_session: tokens, max_cost_usd_per_session: cost });
  });

  it("gives nothing when nothing is left", () => {
    expect(childBudget({ max_tokens_per_session: 100, max_cost_usd_per_session: null }, { tokens: 100, costUsd: 0 }, 1)).toBeNull();
    expect(childBudget({ max_tokens_per_session: 100, max_cost_usd_per_session: 0.1 }, { tokens: 0, costUsd: 0.1 }, 1)).toBeNull();
  });

  it("only ever lowers the child's own limits", () => {
    const own = { ...BUILTIN_DEFAULT_LIMITS, max_tokens_per_session: 50, max_cost_usd_per_session: 0.1 };
    expect(capToShare(own, { max_tokens_per_session: 90, max_cost_usd_per_session: 0.5 })).toMatchObject({
      max_tokens_per_session: 50,
      max_cost_usd_per_session: 0.1,
    });
    expect(capToShare(BUILTIN_DEFAULT_LIMITS, { max_tokens_per_session: 90, max_cost_usd_per_session: 0.5 })).toMatchObject({
      max_tokens_per_session: 90,
      max_cost_usd_per_session: 0.5,
    });
  });
});

describe("a daily budget's renewal", () => {
  const run = (status: RunState["status"], resumeAt: number | null) =>
    ({ status, budget_wait: { budget: "tenant_tokens", resume_at: resumeAt } }) as RunState;
  it("is due at its time, only while the run waits on it", () => {
    expect(budgetRenewed(run("waiting_budget", 1000), 999)).toBe(false);
    expect(budgetRenewed(run("waiting_budget", 1000), 1000)).toBe(true);
    expect(budgetRenewed(run("waiting_budget", null), 5000)).toBe(false);
    expect(budgetRenewed(run("running", 1000), 5000)).toBe(false);
  });
});

describe("a started child's share recomputed", () => {
  it("is its spend plus an even split of what the family has left, and never below its spend", () => {
    // Parent raised to 200; family spent 100 (parent 10, two children 45 each): 95 each.
    expect(
      reshare({ max_tokens_per_session: 200, max_cost_usd_per_session: 1 }, { tokens: 100, costUsd: 0.5 }, { tokens: 45, costUsd: 0.2 }, 2),
    ).toEqual({ max_tokens_per_session: 95, max_cost_usd_per_session: 0.45 });
    // Lowered below what the family spent: the child keeps what it spent, no more.
    expect(
      reshare({ max_tokens_per_session: 50, max_cost_usd_per_session: null }, { tokens: 100, costUsd: 0 }, { tokens: 45, costUsd: 0 }, 2),
    ).toEqual({ max_tokens_per_session: 45, max_cost_usd_per_session: null });
  });
});

describe("which budget changes wake the sessions waiting", () => {
  it("only a raise: a lowering, an unchanged budget or a new one where there was none wakes no one", () => {
    expect(raised(25, 1000)).toBe(true);
    expect(raised(25, null)).toBe(true);
    expect(raised(25, 10)).toBe(false);
    expect(raised(25, 25)).toBe(false);
    expect(raised(null, 10)).toBe(false);
    const before = { ...BUILTIN_DEFAULT_LIMITS, max_tokens_per_day: 100, max_cost_usd_per_day: 1 };
    expect(raisedDailyBudgets(before, { ...before, max_cost_usd_per_day: 2, max_tokens_per_day: 50 })).toEqual(["tenant_cost"]);
    expect(raisedDailyBudgets(before, { ...before, requests_per_minute: 1 })).toEqual([]);
  });
});
