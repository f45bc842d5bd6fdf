/**
 * A canary run's end as its session reports it, checked at the store's RPC boundary, and scored by
 * the rule's scorers (the evals' scorers; online there is no `expected`, and no judge: see
 * `ONLINE_SCORER_TYPES`). The spec a gateway sends is checked here too, in shape only.
 */
import { scoreOne } from "../evals/scorers";
import { requireInt, requireString } from "../shared/validate";
import {
  type CanaryScorer,
  type CanarySpec,
  MAX_CANARY_MIN_RUNS,
  MAX_CANARY_PERCENT,
  MAX_CANARY_SCORERS,
  MIN_CANARY_PERCENT,
} from "./canary";

/**
 * Scorers a canary rule may name. A judge is a model call per run that the agent store would make
 * and bill outside any session's budget, so online judging waits for a place to count it; every
 * other scorer is pure and cheap.
 */
export const ONLINE_SCORER_TYPES: readonly string[] = [
  "exact",
  "contains",
  "regex",
  "json_schema",
  "tool_called",
  "max_steps",
  "max_cost_usd",
];
/** An answer beyond this is scored on its start: a canary judges behaviour, not essays. */
export const MAX_CANARY_ANSWER_CHARS = 64 * 1024;
/** Tool calls a run's report carries to the scorers. */
export const MAX_CANARY_TOOL_CALLS = 200;

/** What the session object tells of a canary run's end. */
export interface CanaryRunFacts {
  session_id: string;
  /** The session's run counter at the end. */
  run: number;
  status: string;
  /** The run's final text, cut to `MAX_CANARY_ANSWER_CHARS`; null when it gave none. */
  answer: string | null;
  /** The run's structured output (under an `output_schema`), or null. */
  output: unknown;
  tool_calls: { name: string; input: unknown }[];
  steps: number;
  cost_usd: number;
  /** When the session was created (ms): a run of a session older than the canary counts for nothing. */
  session_created_at: number;
}

export function parseRunFacts(value: unknown): CanaryRunFacts {
  if (typeof value !== "object" || value === null) throw new TypeError("facts must be an object");
  const f = value as Record<string, unknown>;
  const calls = f.tool_calls;
  if (!Array.isArray(calls) || calls.length > MAX_CANARY_TOOL_CALLS) throw new TypeError("tool_calls must be a short list");
  const cost = f.cost_usd;
  if (typeof cost !== "number" || !Number.isFinite(cost) || cost < 0) throw new TypeError("cost_usd must be a number");
  return {
    session_id: requireString("session_id", f.session_id),
    run: requireInt("run", f.run, 1),
    status: requireString("status", f.status),
    answer: f.answer == null ? null : requireString("answer", f.answer, MAX_CANARY_ANSWER_CHARS),
    output: f.output ?? null,
    tool_calls: calls.map((call: unknown, i) => {
      const c = call as { name?: unknown; input?: unknown } | null;
      return { name: requireString(`tool_calls[${i}].name`, c?.name), input: c?.input ?? null };
    }),
    steps: requireInt("steps", f.steps, 0),
    cost_usd: cost,
    session_created_at: requireInt("session_created_at", f.session_created_at, 0),
  };
}

/** The spec's shape; the gateway checked each scorer against the scorers' schema. */
export function parseCanarySpec(value: unknown): CanarySpec {
  if (typeof value !== "object" || value === null) throw new TypeError("canary must be an object");
  const c = value as Record<string, unknown>;
  const version = requireInt("canary.version", c.version, 1);
  const percent = requireInt("canary.percent", c.percent, MIN_CANARY_PERCENT, MAX_CANARY_PERCENT);
  if (c.rollback == null) return { version, percent, rollback: null };
  const r = c.rollback as Record<string, unknown>;
  const scorers = r.scorers;
  if (!Array.isArray(scorers) || scorers.length > MAX_CANARY_SCORERS) throw new TypeError("canary.rollback.scorers must be a short list");
  for (const scorer of scorers as { type?: unknown }[])
    if (!ONLINE_SCORER_TYPES.includes(String(scorer?.type))) throw new TypeError("canary.rollback.scorers holds a scorer not run online");
  return {
    version,
    percent,
    rollback: {
      scorers: scorers as CanaryScorer[],
      min_score: share("canary.rollback.min_score", r.min_score),
      max_failure_rate: share("canary.rollback.max_failure_rate", r.max_failure_rate),
      min_runs: requireInt("canary.rollback.min_runs", r.min_runs, 1, MAX_CANARY_MIN_RUNS),
    },
  };
}

function share(name: string, value: unknown): number | null {
  if (value == null) return null;
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) throw new RangeError(`${name} must be between 0 and 1`);
  return value;
}

/** Each scorer's score of the run, in the rule's order; a scorer that throws scores null with why. */
export async function scoreCanaryRun(
  scorers: readonly CanaryScorer[],
  run: CanaryRunFacts,
): Promise<{ score: number | null; reason: string }[]> {
  const input = {
    answer: run.answer,
    output: run.output,
    toolCalls: run.tool_calls,
    steps: run.steps,
    costUsd: run.cost_usd,
    status: run.status,
  };
  const results: { score: number | null; reason: string }[] = [];
  for (const scorer of scorers) {
    try {
      const result = await scoreOne(scorer, input);
      results.push({ score: result.score, reason: result.reason });
    } catch (error) {
      results.push({ score: null, reason: `The scorer failed: ${String(error).slice(0, 200)}` });
    }
  }
  return results;
}

/** What the count needs of a scored run: it failed when it ended `failed` (a cancel is the caller's doing, not the version's). */
export function runOutcome(run: CanaryRunFacts, scores: { score: number | null; reason: string }[]) {
  return { session_id: run.session_id, run: run.run, failed: run.status === "failed", scores, session_created_at: run.session_created_at };
}
