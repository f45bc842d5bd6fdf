/**
 * A child's budget drawn from its parent's: the parent's session budgets less what the family spent
 * (its own and every descendant's, as last reported), split evenly among the batch's agent calls
 * still open, so children started together cannot each take the whole remainder. The child's own
 * limits are lowered to its share; the parent's check counts the family too. Pure.
 */
import type { Limits } from "../../../limits";

export interface FamilySpend {
  tokens: number;
  costUsd: number;
}

export type ChildBudget = Pick<Limits, "max_tokens_per_session" | "max_cost_usd_per_session">;

/** The share of the parent's remaining budgets one child may spend, or null when nothing is left to give. */
export function childBudget(parent: ChildBudget, spent: FamilySpend, openAgentCalls: number): ChildBudget | null {
  const ways = Math.max(1, openAgentCalls);
  const tokens = Math.floor((parent.max_tokens_per_session - spent.tokens) / ways);
  const maxCost = parent.max_cost_usd_per_session ?? null;
  const cost = maxCost === null ? null : (maxCost - spent.costUsd) / ways;
  if (tokens < 1 || (cost !== null && cost <= 0)) return null;
  return { max_tokens_per_session: tokens, max_cost_usd_per_session: cost };
}

/** The child's limits lowered to its share (never raised: a child's own agent may ask for less). */
export function capToShare(limits: Limits, share: ChildBudget): Limits {
  const own = limits.max_cost_usd_per_session ?? null;
  const shared = share.max_cost_usd_per_session ?? null;
  return {
    ...limits,
    max_tokens_per_session: Math.min(limits.max_tokens_per_session, share.max_tokens_per_session),
    max_cost_usd_per_session: own === null ? shared : shared === null ? own : Math.min(own, shared),
  };
}

/**
 * A started child's share recomputed: what it already spent plus an even split of what the family
 * has left (the family's spend counts the child's own), so the family's total stays within the parent's.
 */
export function reshare(parent: ChildBudget, family: FamilySpend, own: FamilySpend, ways: number): ChildBudget {
  const split = Math.max(1, ways);
  const tokens = own.tokens + Math.max(0, Math.floor((parent.max_tokens_per_session - family.tokens) / split));
  const maxCost = parent.max_cost_usd_per_session ?? null;
  const cost = maxCost === null ? null : own.costUsd + Math.max(0, (maxCost - family.costUsd) / split);
  return { max_tokens_per_session: tokens, max_cost_usd_per_session: cost };
}
