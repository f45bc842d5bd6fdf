/**
 * A session's `reasoning` as each provider takes it. Anthropic's extended thinking takes a token
 * budget that is part of the answer's cap (`max_tokens`), at least `MIN_THINKING_BUDGET`; Chat
 * Completions takes `reasoning_effort`. Pure.
 */
import type { ReasoningEffort, ReasoningSettings } from "./types";

/** Anthropic's smallest thinking budget; a call whose cap leaves less does not think. */
export const MIN_THINKING_BUDGET = 1_024;
/** The largest budget a session may ask for: above the longest answer any Claude model writes. */
export const MAX_THINKING_BUDGET = 128_000;
/** The budget an effort stands for on Anthropic; `medium` when neither effort nor budget is given. */
export const EFFORT_BUDGETS: Record<ReasoningEffort, number> = { low: 1_024, medium: 4_096, high: 16_384 };

/**
 * Anthropic's `thinking` for a call capped at `maxTokens`: the budget asked for (or the effort's),
 * kept below the cap, which counts thinking and answer together; none when the cap leaves no
 * room for the smallest budget.
 */
export function anthropicThinking(
  reasoning: ReasoningSettings | null | undefined,
  maxTokens: number,
): { type: "enabled"; budget_tokens: number } | null {
  if (!reasoning) return null;
  const wanted = reasoning.budget_tokens ?? EFFORT_BUDGETS[reasoning.effort ?? "medium"];
  const budget = Math.min(wanted, maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? { type: "enabled", budget_tokens: budget } : null;
}

/** Chat Completions' `reasoning_effort`: the effort given; without one the model's own default. */
export function chatReasoningEffort(reasoning: ReasoningSettings | null | undefined): ReasoningEffort | null {
  return reasoning?.effort ?? null;
}
