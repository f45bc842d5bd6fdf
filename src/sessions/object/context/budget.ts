/**
 * The token budget of one model call's input, and the sizes the `summary` strategy works
 * with. Pure: every figure comes in as an argument.
 */

/** Kept free beyond the answer for the provider's own framing of the request. */
export const CONTEXT_MARGIN_TOKENS = 512;
/** A summary answer is capped at this many tokens, and at a quarter of the input budget. */
export const SUMMARY_MAX_TOKENS = 2048;
/** Below this a summary says nothing useful, whatever the budget; the call's cap still bounds it. */
export const SUMMARY_MIN_TOKENS = 128;
/** The summary call's instructions and framing, beside the summary and the folded messages. */
export const SUMMARY_PROMPT_TOKENS = 400;

export interface BudgetInputs {
  /** The session's `max_input_tokens`, or null. */
  maxInputTokens: number | null;
  /** The model's context size in tokens. */
  contextTokens: number;
  /** The answer's cap for this call. */
  maxTokens: number;
}

/** The input budget of a call, in provider tokens: the session's, within the model's room. */
export function inputBudget({ maxInputTokens, contextTokens, maxTokens }: BudgetInputs): number {
  const room = Math.max(0, contextTokens - maxTokens - CONTEXT_MARGIN_TOKENS);
  return maxInputTokens === null ? room : Math.min(maxInputTokens, room);
}

/**
 * The budget for messages, in estimated tokens: the input budget scaled down by how much the
 * provider counts over the estimate (`ratio` ≥ 1), less what every call sends besides messages
 * (the system prompt and the tool definitions).
 */
export function messageBudget(input: number, ratio: number, fixedTokens: number): number {
  return Math.max(0, Math.floor(input / ratio) - fixedTokens);
}

/** The cap of a summary's answer, in tokens. */
export function summaryMaxTokens(budget: number, maxTokens: number): number {
  return Math.max(1, Math.min(maxTokens, Math.max(SUMMARY_MIN_TOKENS, Math.min(SUMMARY_MAX_TOKENS, Math.floor(budget / 4)))));
}

/**
 * How many tokens of messages one summary call may fold: what the summary call's own input
 * budget leaves after its instructions and the summary it extends.
 */
export function foldCap(budget: number, summaryTokens: number): number {
  return Math.max(1, budget - summaryTokens - SUMMARY_PROMPT_TOKENS);
}
