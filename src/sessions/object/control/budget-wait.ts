/**
 * Budgets that pause: a run that reached a budget waits in `waiting_budget`, holding no run slot,
 * and goes on when the budget is raised (a tenant admin's PATCH of the session's limits, a key's or
 * the tenant's limits changed) or, for a daily budget, at the next UTC midnight. Going on, it claims
 * a run slot like any start, and every budget is checked again before its next model call.
 */
import { parseAuditContext } from "../../../audit/entry";
import type { AuditContext } from "../../../audit/types";
import { type Limits, limitsSchema, type PartialLimits, partialLimitsSchema } from "../../../limits";
import { budgetCostUsd } from "../../../models/prices";
import { sumUsage } from "../store/subagents";
import { totalTokens } from "../../../session-config/types";
import { type BudgetWait, DAILY_BUDGET_LIMITS, isDailyBudget, nextUtcDay } from "../../../usage/budgets";
import type { Reporter } from "../report/reporter";
import { pushFamilyShares, type ShareHost } from "../subagents/share-push";
import type { RunState } from "../store/store";
import { SHOWN, type Answer } from "./answers";
import type { ControlHost } from "./host";

/** What the budget's controls need of the engine: the run state, the slot, and the reporter's memory of today's spend. */
export type BudgetHost = Pick<ControlHost, "store" | "slots" | "audit" | "config" | "transaction" | "updateRun" | "requireSession"> & {
  readonly reporter: Pick<Reporter, "forgetSpend">;
};

/** The run stops before its next model call and waits; a daily budget's wait ends by itself at the next UTC midnight. */
export function waitForBudget(host: Pick<ControlHost, "updateRun">, budget: BudgetWait, now: number): void {
  host.updateRun({ status: "waiting_budget", budget_wait: { budget, resume_at: isDailyBudget(budget) ? nextUtcDay(now) : null } });
}

/** Whether a daily budget the run waits on has renewed (the alarm asks). */
export function budgetRenewed(run: RunState, now: number): boolean {
  const resumeAt = run.status === "waiting_budget" ? (run.budget_wait?.resume_at ?? null) : null;
  return resumeAt !== null && resumeAt <= now;
}

/**
 * The session's spend as its cost budget counts it: its own tokens and its sub-agents', priced at
 * its own model's price (a child of another model is priced as the parent's); a model without a price costs nothing.
 */
export function sessionCostUsd(host: Pick<BudgetHost, "store" | "config" | "requireSession">): number {
  const usage = sumUsage(host.store.run().usage, host.store.descendantUsage());
  return budgetCostUsd(host.config.prices, host.requireSession().model, usage);
}

/**
 * Whether the session's own budget the run waits on is still reached (a lowering, or a raise too
 * small): the run then stays, and sends no second `session.waiting_budget`. A daily budget's figures
 * live in the index, so a wait on one goes on and the check before the next model call decides.
 */
function sessionBudgetStillReached(host: Pick<BudgetHost, "store" | "config" | "requireSession">): boolean {
  const budget = host.store.run().budget_wait?.budget;
  const limits = host.requireSession().limits;
  if (budget === "session_tokens")
    return totalTokens(sumUsage(host.store.run().usage, host.store.descendantUsage())) >= limits.max_tokens_per_session;
  const maxCost = limits.max_cost_usd_per_session ?? null;
  if (budget === "session_cost") return maxCost !== null && sessionCostUsd(host) >= maxCost;
  return false;
}

/**
 * The run goes on after its budget was raised or renewed: it claims a slot (else it is `queued`),
 * and the reporter forgets today's figures, so the next unit asks the index for fresh ones before
 * any model call. A session not waiting on a budget is left as it is.
 */
export async function resumeFromBudget(host: BudgetHost): Promise<void> {
  if (host.store.run().status !== "waiting_budget" || sessionBudgetStillReached(host)) return;
  await host.slots.goOn({
    needed: true,
    stands: () => (host.store.run().status === "waiting_budget" ? null : "moved_on"),
    go: (runnable) => {
      host.reporter.forgetSpend();
      host.transaction(() => host.updateRun({ status: runnable, budget_wait: null }));
    },
    suspended: "instead",
  });
}

/**
 * A tenant admin's change of the session's limits (already checked against the tenant's, so it
 * raises none past them): applied and audited in one transaction, then a run waiting on a budget goes on.
 */
export async function setLimits(host: BudgetHost & ShareHost, asked: PartialLimits, by?: AuditContext): Promise<Answer> {
  const limits = rpcArgument(partialLimitsSchema, asked, "limits");
  const session = host.requireSession();
  const context = parseAuditContext(by);
  host.transaction(() => {
    host.store.putSession({ ...session, limits: { ...session.limits, ...limits } });
    host.audit.record(
      session.tenant_id,
      context,
      { action: "session.limits_updated", target: { type: "session", id: session.id }, details: { limits } },
      Date.now(),
    );
    // A change of status tells the index at once; this one only raises the revision the index must hear of.
    host.updateRun({});
  });
  await resumeFromBudget(host);
  // The children draw on these budgets: their shares follow a raise (or a lowering).
  await pushFamilyShares(host);
  return SHOWN;
}

/**
 * The tenant index's word that a budget this session waits on may have been raised: a key's daily
 * budget, or the tenant's limits (`tenantLimits`, whose daily budgets replace the session's copies).
 */
export async function budgetRaised(host: BudgetHost, asked: Limits | null): Promise<Answer> {
  const tenantLimits = asked === null ? null : rpcArgument(limitsSchema, asked, "tenantLimits");
  if (host.store.run().status !== "waiting_budget") return SHOWN;
  if (tenantLimits) {
    const session = host.requireSession();
    const limits = { ...session.limits };
    // The daily budgets a session keeps a copy of: a change of the tenant's limits replaces them.
    for (const name of DAILY_BUDGET_LIMITS) (limits as Record<string, number | null>)[name] = tenantLimits[name];
    host.store.putSession({ ...session, limits });
  }
  await resumeFromBudget(host);
  return SHOWN;
}

/** An RPC argument checked by its schema: a caller's bug throws, never a half-applied change. */
function rpcArgument<T>(
  schema: { safeParse(value: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  name: string,
): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new TypeError(`${name} are not valid limits`);
  return parsed.data;
}
