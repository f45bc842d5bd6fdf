/**
 * An alias's canary: a second version that takes a share of the alias's new sessions, its runs
 * counted and scored online, removed at once when its rollback rule is crossed. The routing and
 * the verdict are pure; the store keeps the record (canary-store.ts).
 */

/** The share of an alias's sessions a canary may take, in whole percent: never none, never all. */
export const MIN_CANARY_PERCENT = 1;
export const MAX_CANARY_PERCENT = 99;
/** Scorers one rule may name; each runs at the end of every canary run. */
export const MAX_CANARY_SCORERS = 8;
/** Runs a rule may wait for before it judges; a larger number is a rollout, not a canary. */
export const MAX_CANARY_MIN_RUNS = 100_000;

import type { Scorer } from "../evals/scorers";

/** A scorer as the evals module defines it; checked by the gateway against its schema. */
export type CanaryScorer = Scorer;

export interface RollbackRule {
  scorers: CanaryScorer[];
  /** Below this mean score (over scored runs), or for any run with a scorer below it, the canary fails. */
  min_score: number | null;
  /** Above this share of failed runs the canary is rolled back. */
  max_failure_rate: number | null;
  /** Nothing is judged before this many runs ended. */
  min_runs: number;
}

export interface CanarySpec {
  version: number;
  percent: number;
  rollback: RollbackRule | null;
}

/** The live counts of a canary's runs. */
export interface CanaryCounts {
  runs: number;
  failures: number;
  /** Runs that got a score (every scorer null: no score). */
  scored: number;
  score_sum: number;
}

/** A canary as answers show it: the rule and its live numbers. */
export interface CanaryState extends CanarySpec {
  runs: number;
  failures: number;
  failure_rate: number | null;
  mean_score: number | null;
  started_at: string;
}

/** One canary run's end as the session object reports it, scored by the rule's scorers. */
export interface CanaryOutcome {
  session_id: string;
  /** The session's run counter: a run is counted once, however often its end is reported. */
  run: number;
  /** The run ended in `failed`. */
  failed: boolean;
  /** Each scorer's score in [0, 1], or null with its reason. */
  scores: { score: number | null; reason: string }[];
}

export function meanScore(counts: CanaryCounts): number | null {
  return counts.scored === 0 ? null : counts.score_sum / counts.scored;
}

export function failureRate(counts: CanaryCounts): number | null {
  return counts.runs === 0 ? null : counts.failures / counts.runs;
}

/**
 * A run's score is the mean of its scorers' scores (null ones left out; all null: no score). It
 * failed when it ended `failed` or, under a `min_score`, when any scorer scored below it.
 */
export function judgeRun(
  outcome: Pick<CanaryOutcome, "failed" | "scores">,
  rule: RollbackRule | null,
): { score: number | null; failed: boolean } {
  const scores = outcome.scores.map((s) => s.score).filter((s): s is number => s !== null);
  const score = scores.length === 0 ? null : scores.reduce((a, b) => a + b, 0) / scores.length;
  const belowMin = rule?.min_score != null && scores.some((s) => s < rule.min_score!);
  return { score, failed: outcome.failed || belowMin };
}

/** Why the canary must go now, or null: only once `min_runs` ended, then a mean below `min_score` or a failure rate above the maximum. */
export function rollbackReason(counts: CanaryCounts, rule: RollbackRule | null): "min_score" | "max_failure_rate" | null {
  if (rule === null || counts.runs < rule.min_runs) return null;
  const mean = meanScore(counts);
  if (rule.min_score !== null && mean !== null && mean < rule.min_score) return "min_score";
  const rate = failureRate(counts);
  if (rule.max_failure_rate !== null && rate !== null && rate > rule.max_failure_rate) return "max_failure_rate";
  return null;
}

/**
 * The bucket (0–99) of a routing key: the first four bytes of its SHA-256, so the same key always
 * lands in the same bucket and keys spread evenly. A session goes to the canary when its bucket
 * is below the percent, so raising the percent only moves callers from the alias's version to the canary.
 */
export async function canaryBucket(key: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
  const word = ((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0;
  return word % 100;
}

/**
 * What keeps a caller on one arm. A chat's session id is derived from the chat id (src/chat/), so
 * it stands for the chat. An end user is a person: every session and chat of theirs goes
 * one way. Any other principal (an API key, a backend's JWT) speaks for many people, so each of
 * its chats (or sessions outside a chat) is routed on its own, keeping a conversation on one version.
 */
export function routingKey(createdBy: string, isEndUser: boolean, alias: string, chatOrSessionId: string): string {
  // The alias (`agt_…@name`) is part of the key, so one caller's arms of different canaries are independent.
  return JSON.stringify(isEndUser ? ["user", alias, createdBy] : ["conversation", alias, createdBy, chatOrSessionId]);
}
