/**
 * The tenant's daily budgets as the index judges them: against one count of its spending, its own
 * sessions' rollup with what each of its shards sent (`shard_spend`, ./shard-spend.ts), and the
 * reservations of runs going, its own and those it recorded for its shards' runs.
 */
import { loadConfig } from "../../config";
import { requireInt, requireNow, requireString, utcDay } from "../../shared/validate";
import {
  budgetReached,
  type BudgetName,
  type Budgets,
  DAILY_BUDGET_LIMITS,
  hasBudget,
  partsCounted,
  secondsToNextUtcDay,
  type Spend,
  type SpendParts,
} from "../../usage/budgets";
import { keyTokenBudget } from "../api-key-store";
import { reservedTokens } from "../budget-reservations";
import { RUN_SLOT_RETRY_AFTER_SECONDS } from "../run-slots";
import type * as T from "../types";
import { dailyBudgetRetryAfter, tokensOnDay } from "../usage";
import { spendOnDay, type SpendSource } from "../usage-rollup";
import type { IndexHost } from "./host";

/** Whether any daily budget is set: one of the tenant's limits, or a live API key's `max_tokens_per_day`. */
export function budgetsInForce(host: IndexHost): boolean {
  const { limits } = host.config();
  if (DAILY_BUDGET_LIMITS.some((name) => (limits[name] ?? null) !== null)) return true;
  return (
    host.sql
      .exec<{ n: number }>(`SELECT EXISTS (SELECT 1 FROM api_keys WHERE max_tokens_per_day IS NOT NULL AND revoked_at IS NULL) AS n`)
      .one().n === 1
  );
}

const COLUMNS = `model, api_key_id, created_by, day, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens`;

/** The index's rollup and every shard's spending but `except`'s ('' for none). */
function everywhere(except: string): SpendSource {
  return { from: `(SELECT ${COLUMNS} FROM usage_rollup UNION ALL SELECT ${COLUMNS} FROM shard_spend WHERE shard <> ?)`, params: [except] };
}

/** The tenant's tokens on the UTC day of `now`: its own sessions' and its shards' but `except`'s. */
export function tenantTokensOnDay(sql: SqlStorage, now: number, except = ""): number {
  const shards = sql
    .exec<{ n: number | null }>(
      `SELECT SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens) AS n FROM shard_spend WHERE day = ? AND shard <> ?`,
      utcDay(now),
      except,
    )
    .one().n;
  return tokensOnDay(sql, now) + (shards ?? 0);
}

/** `spendOnDay` over the index's sessions and its shards' but `except`'s. */
export function tenantSpendOnDay(host: IndexHost, now: number, createdBy: string, apiKeyId: string, parts: SpendParts, except = ""): Spend {
  return spendOnDay(host.sql, now, createdBy, apiKeyId, loadConfig(host.env).prices, parts, everywhere(except));
}

/** A run the budgets let start, and what it is to hold reserved once it has its slot (0: nothing to hold). */
export interface Judged {
  ok: true;
  id: string;
  at: number;
  createdBy: string;
  apiKeyId: string;
  reserve: number;
}

/**
 * The daily budgets a new run must pass (`admitRun`, and a shard's run: ./shard-spend.ts): the
 * tenant's tokens and cost, its creator's and its key's tokens, each counting the tokens other runs
 * going today still hold reserved. Synchronous, so the caller reserves in the same stretch.
 */
export function judgeBudgets(host: IndexHost, input: T.AdmitRunInput): Judged | Exclude<T.RunAdmission, { ok: true }> {
  const at = requireNow(input.now);
  const id = requireString("sessionId", input.sessionId);
  const createdBy = input.createdBy === undefined ? "" : requireString("createdBy", input.createdBy);
  const apiKeyId = input.apiKeyId ?? "";
  const reserved = reservedTokens(host.sql, at, createdBy, apiKeyId, id);
  const maxTokensPerDay = input.maxTokensPerDay === null ? null : requireInt("maxTokensPerDay", input.maxTokensPerDay, 1);
  const spent = tenantTokensOnDay(host.sql, at);
  const retryAfterSeconds = dailyBudgetRetryAfter(spent, maxTokensPerDay, at);
  if (retryAfterSeconds !== null) return { ok: false, code: "budget_used", retryAfterSeconds };
  if (dailyBudgetRetryAfter(spent + reserved.tenant, maxTokensPerDay, at) !== null) return heldByRuns();
  const budgets: Budgets = {
    max_cost_usd_per_day: optionalBudget("maxCostUsdPerDay", input.maxCostUsdPerDay),
    max_tokens_per_day_per_subject: optionalBudget("maxTokensPerDayPerSubject", input.maxTokensPerDayPerSubject),
    key_max_tokens_per_day: keyTokenBudget(host.sql, apiKeyId),
  };
  if (hasBudget(budgets)) {
    requireString("createdBy", input.createdBy);
    const spend = tenantSpendOnDay(host, at, createdBy, apiKeyId, partsCounted(budgets));
    const spentBudget = budgetReached(spend, budgets);
    if (spentBudget !== null) return { ok: false, code: "budget_used", retryAfterSeconds: secondsToNextUtcDay(at), budget: spentBudget };
    const held = { ...spend, subject_tokens: spend.subject_tokens + reserved.subject, key_tokens: spend.key_tokens + reserved.key };
    const heldBudget = budgetReached(held, budgets);
    if (heldBudget !== null) return heldByRuns(heldBudget);
  }
  const tokenBudget =
    maxTokensPerDay !== null || budgets.max_tokens_per_day_per_subject !== null || budgets.key_max_tokens_per_day !== null;
  const reserve = input.reserveTokens === undefined ? 0 : requireInt("reserveTokens", input.reserveTokens, 0);
  return { ok: true, id, at, createdBy, apiKeyId, reserve: tokenBudget ? reserve : 0 };
}

/** A budget only the reservations of runs going fill: they settle as those runs end, so the retry is a busy slot's. */
function heldByRuns(budget?: BudgetName): Exclude<T.RunAdmission, { ok: true }> {
  return { ok: false, code: "budget_used", retryAfterSeconds: RUN_SLOT_RETRY_AFTER_SECONDS, held: true, ...(budget ? { budget } : {}) };
}

function optionalBudget(name: string, value: unknown): number | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a number of at least 0`);
  return value;
}
