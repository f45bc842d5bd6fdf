/**
 * The daily budgets below the tenant's token budget: the tenant's cost, each creator's tokens and
 * each API key's tokens, all per UTC day. One rule for both places that apply it: the index, when a
 * run asks to start, and the session object, before each unit of a run going. Pure.
 */

import { BUDGET_WAITS, type BudgetWait } from "../session-config/statuses";

export const BUDGET_NAMES = ["tenant_cost", "subject_tokens", "key_tokens"] as const;

/** The tenant's limits that are daily budgets (an API key's `max_tokens_per_day` is the key's own). */
export const DAILY_BUDGET_LIMITS = ["max_tokens_per_day", "max_cost_usd_per_day", "max_tokens_per_day_per_subject"] as const;
export type BudgetName = (typeof BUDGET_NAMES)[number];

/** Today's spending a budget is compared with: the tenant's cost, and the tokens of one creator and one key. */
export interface Spend {
  /** Tokens of models without a price add nothing: a cost budget never guesses. */
  cost_usd: number;
  subject_tokens: number;
  /** Zero for a session no API key created. */
  key_tokens: number;
}

/** Null: no such budget. */
export interface Budgets {
  max_cost_usd_per_day: number | null;
  max_tokens_per_day_per_subject: number | null;
  /** The creating API key's `max_tokens_per_day`; null for none, or no key. */
  key_max_tokens_per_day: number | null;
}

export const NO_SPEND: Spend = { cost_usd: 0, subject_tokens: 0, key_tokens: 0 };

/** The first budget `spend` has reached, or null while all last. Reached means used up: a budget of 0 allows nothing. */
export function budgetReached(spend: Spend, budgets: Budgets): BudgetName | null {
  if (budgets.max_cost_usd_per_day !== null && spend.cost_usd >= budgets.max_cost_usd_per_day) return "tenant_cost";
  if (budgets.max_tokens_per_day_per_subject !== null && spend.subject_tokens >= budgets.max_tokens_per_day_per_subject)
    return "subject_tokens";
  if (budgets.key_max_tokens_per_day !== null && spend.key_tokens >= budgets.key_max_tokens_per_day) return "key_tokens";
  return null;
}

/** Which parts of a day's spend are read: those a budget counts (`spendOnDay`). */
export interface SpendParts {
  cost: boolean;
  subject: boolean;
  key: boolean;
}

/** The parts of a day's spend `budgets` count. */
export function partsCounted(budgets: Budgets): SpendParts {
  return {
    cost: budgets.max_cost_usd_per_day !== null,
    subject: budgets.max_tokens_per_day_per_subject !== null,
    key: budgets.key_max_tokens_per_day !== null,
  };
}

export function hasBudget(budgets: Budgets): boolean {
  const parts = partsCounted(budgets);
  return parts.cost || parts.subject || parts.key;
}

/**
 * The budget a run waits on in `waiting_budget`: its session's own tokens or cost (raised by a
 * tenant admin's PATCH), or a daily one (raised by a limits or key change, renewed at the next UTC midnight).
 */
export { BUDGET_WAITS, type BudgetWait };

export function isBudgetWait(value: unknown): value is BudgetWait {
  return typeof value === "string" && (BUDGET_WAITS as readonly string[]).includes(value);
}

/** A daily budget renews by itself at the next UTC midnight; a session's own never does. */
export function isDailyBudget(budget: BudgetWait): boolean {
  return budget !== "session_tokens" && budget !== "session_cost";
}

/** The next UTC midnight after `now` (epoch ms), when every daily budget renews. */
export function nextUtcDay(now: number): number {
  const day = 24 * 60 * 60 * 1000;
  return (Math.floor(now / day) + 1) * day;
}

/** Seconds until the next UTC midnight, when every daily budget renews; at least 1. */
export function secondsToNextUtcDay(now: number): number {
  return Math.max(1, Math.ceil((nextUtcDay(now) - now) / 1000));
}

export const BUDGET_TEXT: Record<BudgetName, string> = {
  tenant_cost: "The tenant's daily cost budget is used up.",
  subject_tokens: "This user's daily token budget is used up.",
  key_tokens: "This API key's daily token budget is used up.",
};
