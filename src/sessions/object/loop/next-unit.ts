/**
 * What a running session does next, decided from its state alone: wait out a retry's backoff,
 * finish at the step limit, wait for a budget reached, run the open tool calls, fold old messages into the summary, or call the
 * model. Pure: the alarm asks this and runs the answer, so the order of these rules lives in
 * one place.
 */
import type { Limits } from "../../../limits";
import type { RunState } from "../store/store";
import { type StopReason, totalTokens } from "../../../session-config/types";
import type { BudgetName, BudgetWait } from "../../../usage/budgets";

export { UNIT_KINDS, UNIT_OUTCOMES, type UnitKind, type UnitOutcome } from "../../../session-config/types";

export type NextUnit =
  /** Not running: nothing to do. */
  | { kind: "none" }
  /** A retry's backoff is pending until `until` (epoch ms). */
  | { kind: "wait"; until: number }
  /** The step limit is reached: the run ends `done` with this reason. */
  | { kind: "finish"; stopReason: Extract<StopReason, "step_limit"> }
  /** A budget is reached: the run waits in `waiting_budget` until it is raised or renews (control/budget-wait.ts). */
  | { kind: "wait_budget"; budget: BudgetWait }
  /** The run's MCP servers are listed and their tools saved, before anything uses the tool set. */
  | { kind: "discover" }
  | { kind: "tools" }
  /** The history passed the budget: fold older messages into the summary before the model call. */
  | { kind: "summary"; maxTokens: number }
  /** `maxTokens`: the answer's cap, the lower of the per-call limit and what the session has left. */
  | { kind: "model"; maxTokens: number };

export interface UnitInputs {
  run: Pick<RunState, "status" | "next_attempt_at" | "steps" | "usage">;
  /** Tool calls of the last model response that have no result the model has seen. */
  openToolCalls: number;
  limits: Limits;
  /** The tenant's tokens today as of the last report; null when not known yet. */
  tenantTokensToday: number | null;
  /**
   * Whether the `summary` strategy must fold messages before a call capped at `maxTokens`.
   * Asked only when a model call is next, so other units never read the history's estimates.
   */
  summaryDue: (maxTokens: number) => boolean;
  /** False while the run's MCP tools are not listed yet (true for a session without MCP servers). */
  toolsReady: boolean;
  /** A daily budget below the tenant's token budget that is reached (usage/budgets.ts); null or absent: none. */
  budgetReached?: BudgetName | null;
  /** The session's cost so far, its sub-agents' included (USD; models without a price add nothing). */
  sessionCostUsd?: number;
  /** The tokens of the sessions its `agent` tools started, and theirs, as last reported: the session's token limit counts them too. */
  descendantTokens?: number;
  now: number;
}

export function nextUnit({
  run,
  openToolCalls,
  limits,
  tenantTokensToday,
  summaryDue,
  toolsReady,
  descendantTokens = 0,
  budgetReached = null,
  sessionCostUsd = 0,
  now,
}: UnitInputs): NextUnit {
  if (run.status !== "running") return { kind: "none" };
  if (run.next_attempt_at > now) return { kind: "wait", until: run.next_attempt_at };
  // The tool set is fixed for the run before the model sees it or any call runs.
  if (!toolsReady) return { kind: "discover" };
  // Results the model asked for come before any limit: every tool_use keeps its tool_result.
  if (openToolCalls > 0) return { kind: "tools" };
  if (run.steps >= limits.max_steps_per_run) return { kind: "finish", stopReason: "step_limit" };
  // Every token counts against the limits, prompt-cache reads and writes included.
  const used = totalTokens(run.usage) + descendantTokens;
  if (used >= limits.max_tokens_per_session) return { kind: "wait_budget", budget: "session_tokens" };
  const maxCost = limits.max_cost_usd_per_session ?? null;
  if (maxCost !== null && sessionCostUsd >= maxCost) return { kind: "wait_budget", budget: "session_cost" };
  // The daily budget is tenant-wide, so it is known from the index's last answer.
  if (limits.max_tokens_per_day !== null && (tenantTokensToday ?? 0) >= limits.max_tokens_per_day) {
    return { kind: "wait_budget", budget: "tenant_tokens" };
  }
  // The tenant's cost, the creator's and the key's tokens: known the same way, from the index's last answer.
  if (budgetReached !== null) return { kind: "wait_budget", budget: budgetReached };
  const maxTokens = Math.min(limits.max_tokens_per_call, limits.max_tokens_per_session - used);
  if (summaryDue(maxTokens)) return { kind: "summary", maxTokens };
  return { kind: "model", maxTokens };
}
