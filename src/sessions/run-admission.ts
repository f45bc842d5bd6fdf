/**
 * What a run must pass before it starts: the tenant's daily budgets and a concurrency slot from its
 * index, and the problem a refusal is answered with (`runRefused`). A start, resume or fork is
 * admitted here before the session object is asked, so a refused one leaves the session as it was;
 * a new session's first run is admitted by the session object itself (`admitSession`), in the call that lists it.
 */
import { sessionHome } from "../tenants/shards/home";
import type { ShardRef } from "../shared/shard-layout";
import { tenantIndexStub } from "../objects";
import type { Env } from "../env";
import type { Limits } from "../limits";
import { dailyBudgetRetryAfter } from "../tenants/usage";
import { ApiError } from "../problems";
import type { Principal } from "../auth/principal";
import type { AdmissionLimits, AdmitRunInput, RunAdmission } from "../tenants/types";
import { BUDGET_TEXT, type BudgetName } from "../usage/budgets";
import { runReservation } from "../tenants/budget-reservations";
import { totalTokens, type Session } from "../session-config/types";

/** A session's own token cap and the tokens it (and the sessions its agent tools started) used so far. */
export interface SessionSpend {
  maxTokens: number;
  usedTokens: number;
}

/** Throws a 429 with Retry-After when the tenant's daily token budget is used up. */
export async function checkDailyBudget(env: Env, tenantId: string, limits: Limits, now: number): Promise<void> {
  if (limits.max_tokens_per_day === null) return;
  const used = await tenantIndexStub(env, tenantId).tokensToday(tenantId, now);
  const retryAfterSeconds = dailyBudgetRetryAfter(used, limits.max_tokens_per_day, now);
  if (retryAfterSeconds !== null) throw budgetUsedUp(retryAfterSeconds);
}

function budgetUsedUp(retryAfterSeconds: number): ApiError {
  return new ApiError("rate_limited", "The tenant's daily token budget is used up.", { retryAfterSeconds });
}

/** What `session` may still spend counts its own tokens and those of the sessions its agent tools started, as its cap does. */
export function sessionSpend(session: Pick<Session, "limits" | "usage">): SessionSpend {
  return {
    maxTokens: session.limits.max_tokens_per_session,
    usedTokens: totalTokens(session.usage) + totalTokens(session.usage.subagents),
  };
}

/**
 * Throws a 429 with Retry-After when a new run may not start: the daily budgets (the tenant's tokens
 * and cost, the caller's tokens, its API key's tokens) and a slot, asked
 * of the index in one call. The slot is a reservation the index holds until the session reports
 * itself running, or a short TTL if the start fails.
 */
export async function admitRun(
  env: Env,
  principal: Pick<Principal, "tenantId" | "subject" | "keyId">,
  sessionId: string,
  limits: Limits,
  spend: SessionSpend,
  now: number,
  /**
   * A new session's place (a fork): its shard, or null for the index. Absent for a session that
   * exists: the index finds where it is.
   */
  home?: ShardRef | null,
): Promise<void> {
  const tenantId = principal.tenantId;
  const input: AdmitRunInput = {
    sessionId,
    ...admissionLimits(limits, spend),
    createdBy: principal.subject,
    apiKeyId: principal.keyId ?? "",
    ...(home === null ? { newSession: true } : {}),
    now,
  };
  const slot = await sessionHome(env, tenantId, home ?? null).admitRun(input);
  if (!slot.ok) throw runRefused(slot, limits);
}

/**
 * The limits a new run is admitted against, as the index takes them. Without `spend` (a new
 * session's first run) the session object lowers the reservation to its own cap (reporter.ts).
 */
export function admissionLimits(limits: Limits, spend?: SessionSpend): AdmissionLimits {
  return {
    maxConcurrent: limits.max_concurrent_runs,
    maxTokensPerDay: limits.max_tokens_per_day,
    // Limits stored before these budgets existed have no value: none.
    maxCostUsdPerDay: limits.max_cost_usd_per_day ?? null,
    maxTokensPerDayPerSubject: limits.max_tokens_per_day_per_subject ?? null,
    // The run's worst case, held against the daily token budgets until it ends.
    reserveTokens:
      spend === undefined
        ? limits.max_tokens_per_session
        : runReservation(limits.max_tokens_per_session, spend.maxTokens, spend.usedTokens),
  };
}

/** Whose budget runs in progress hold the rest of (the cost budget is never reserved). */
const HELD_TEXT: Record<BudgetName | "tenant_tokens", string> = {
  tenant_tokens: "the tenant's daily token budget",
  tenant_cost: "the tenant's daily cost budget",
  subject_tokens: "this user's daily token budget",
  key_tokens: "this API key's daily token budget",
};

/** The 429 (or 403 for a suspended tenant) of a run the index refused, by `admitRun` or a session's `admitSession`. */
export function runRefused(slot: Exclude<RunAdmission, { ok: true }>, limits: Limits): ApiError {
  if (slot.code === "budget_used" && slot.held)
    return new ApiError("rate_limited", `Runs in progress hold the rest of ${HELD_TEXT[slot.budget ?? "tenant_tokens"]}.`, {
      retryAfterSeconds: slot.retryAfterSeconds,
    });
  if (slot.code === "budget_used" && slot.budget)
    return new ApiError("rate_limited", BUDGET_TEXT[slot.budget], { retryAfterSeconds: slot.retryAfterSeconds });
  if (slot.code === "budget_used") return budgetUsedUp(slot.retryAfterSeconds);
  // The tenant was suspended after this request was admitted.
  if (slot.code === "suspended") return new ApiError("tenant_suspended");
  return new ApiError("rate_limited", `The tenant already has ${limits.max_concurrent_runs} runs going.`, {
    retryAfterSeconds: slot.retryAfterSeconds,
  });
}

/**
 * Asks the session object to start, holding the slot `admitRun` took; gives the slot back when the session object
 * refuses or fails, so a failed start does not keep the tenant's slot until it times out.
 */
export async function startWithSlot<T>(
  env: Env,
  tenantId: string,
  sessionId: string,
  start: () => Promise<T>,
  home: ShardRef | null = null,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await releaseQuietly(env, tenantId, sessionId, home);
    throw error;
  }
}

async function releaseQuietly(env: Env, tenantId: string, sessionId: string, home: ShardRef | null): Promise<void> {
  try {
    await sessionHome(env, tenantId, home).releaseRun(sessionId, true);
  } catch {
    // The reservation still expires by itself.
  }
}
