import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { capToShare, childBudget } from "../../../src/sessions/object/subagents/budget-share";
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
