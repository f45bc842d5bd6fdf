/**
 * Fitting a history to a token budget, from the stored per-message estimates alone. Pure: the
 * caller reads the estimates newest first (lazily, so a long history is read only as far as
 * the window reaches) and then loads only the messages chosen.
 *
 * The rules every window keeps, whatever the strategy:
 * - it never starts with a `tool_result`, so every tool_result it holds comes after its
 *   tool_use, and every tool_use is followed by its results (they are saved as the very next
 *   message, and the model is never called while a result is missing);
 * - it always reaches the newest message;
 * - the pinned messages (the session's task and the current run's) are sent whatever the
 *   budget says and are counted once, inside the window or not.
 * Roles alternate once consecutive user messages are joined (see `mergeTurns`).
 */
import type { MessageKind } from "./estimate";

export interface MessageMeta {
  seq: number;
  kind: MessageKind;
  tokens: number;
}

export interface Window {
  /** The oldest message of the window; null when there are no messages to send besides the pinned. */
  startSeq: number | null;
  /** Tokens of the window's messages, pinned ones excluded. */
  tokens: number;
  /** Even the smallest window the rules allow does not fit: it is sent anyway. */
  overBudget: boolean;
}

export interface WindowLimits {
  /** Tokens for the window and the pinned messages together. */
  budget: number;
  pinned: readonly MessageMeta[];
  /** At most this many messages besides the pinned (`last_messages`). */
  maxCount?: number;
}

/**
 * The newest messages that fit, from `newestFirst`. A message that cannot start a window is
 * taken only when the message before it can be taken too; when nothing fits, the smallest valid
 * window is taken (the newest message, and its tool_use when it is a tool_result).
 */
export function fitWindow(newestFirst: Iterable<MessageMeta>, limits: WindowLimits): Window {
  const pinnedSeqs = new Set(limits.pinned.map((m) => m.seq));
  const pinnedTokens = limits.pinned.reduce((sum, m) => sum + m.tokens, 0);
  const maxCount = limits.maxCount ?? Infinity;
  let sum = 0;
  let count = 0;
  let best: { seq: number; tokens: number; over: boolean } | null = null;
  for (const message of newestFirst) {
    const pinned = pinnedSeqs.has(message.seq);
    const nextSum = sum + (pinned ? 0 : message.tokens);
    const nextCount = count + (pinned ? 0 : 1);
    const over = nextCount > maxCount || nextSum + pinnedTokens > limits.budget;
    // Past the limits only while no valid start was found yet: the smallest window is owed.
    if (over && best !== null) break;
    sum = nextSum;
    count = nextCount;
    if (message.kind !== "tool_result") best = { seq: message.seq, tokens: sum, over };
  }
  if (best === null) return { startSeq: null, tokens: 0, overBudget: pinnedTokens > limits.budget };
  return { startSeq: best.seq, tokens: best.tokens, overBudget: best.over || pinnedTokens > limits.budget };
}

/** Share of the budget the newest messages may fill just after a summary, so summaries are rare. */
export const SUMMARY_KEEP_RATIO = 0.5;

export type SummaryPlan =
  /** Everything after the summary fits: send it all. */
  | { kind: "fits"; startSeq: number | null }
  /** Fold the messages after the summary up to `throughSeq` (inclusive) into it first. */
  | { kind: "summarize"; throughSeq: number; foldTokens: number }
  /** It does not fit, and nothing can be folded: the smallest window is sent over budget. */
  | { kind: "over"; startSeq: number | null };

export interface SummaryLimits extends WindowLimits {
  /** Tokens of the summary that is sent (0 without one). */
  summaryTokens: number;
  /** Tokens the next summary is expected to take, kept free in the budget. */
  summaryReserve: number;
  /** At most this many tokens of messages are folded by one summary call. */
  foldCap: number;
}

/**
 * The `summary` strategy's decision, from the messages after the current summary (newest first).
 * When they do not all fit, the older ones are folded until the newest fill at most
 * `SUMMARY_KEEP_RATIO` of the budget; the cut is made where a window may start, and one call
 * folds at most `foldCap` tokens (a longer stretch takes several summary units).
 */
export function planSummary(newestFirst: Iterable<MessageMeta>, limits: SummaryLimits): SummaryPlan {
  const pinnedSeqs = new Set(limits.pinned.map((m) => m.seq));
  const pinnedTokens = limits.pinned.reduce((sum, m) => sum + m.tokens, 0);
  const oldestFirst = [...newestFirst].reverse();
  const tokensOf = (m: MessageMeta) => (pinnedSeqs.has(m.seq) ? 0 : m.tokens);
  const total = oldestFirst.reduce((sum, m) => sum + tokensOf(m), 0);
  const fixed = pinnedTokens + limits.summaryTokens;
  if (total + fixed <= limits.budget) return { kind: "fits", startSeq: oldestFirst[0]?.seq ?? null };

  // Where the kept window may start: at index i > 0 (something is folded) of a message that can
  // start one. The kept part should fill at most the keep share; the newest valid start is the
  // fallback, so at least the smallest window stays.
  const keepBudget = Math.floor(limits.budget * SUMMARY_KEEP_RATIO) - pinnedTokens - limits.summaryReserve;
  let suffix = total;
  let folded = 0;
  let cut: { index: number; folded: number } | null = null;
  let capped: { index: number; folded: number } | null = null;
  for (let i = 1; i < oldestFirst.length; i++) {
    const previous = oldestFirst[i - 1]!;
    folded += tokensOf(previous);
    suffix -= tokensOf(previous);
    if (oldestFirst[i]!.kind === "tool_result") continue;
    if (folded <= limits.foldCap || capped === null) capped = { index: i, folded };
    cut = { index: i, folded };
    if (suffix <= keepBudget) break;
  }
  if (cut === null || capped === null) {
    const smallest = fitWindow([...oldestFirst].reverse(), { budget: 0, pinned: limits.pinned });
    return { kind: "over", startSeq: smallest.startSeq };
  }
  const chosen = cut.folded <= limits.foldCap ? cut : capped;
  return { kind: "summarize", throughSeq: oldestFirst[chosen.index - 1]!.seq, foldTokens: chosen.folded };
}
