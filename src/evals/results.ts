/** An eval as answers show it (progress, per-scorer means, cost, duration) and two evals compared item by item. Pure. */
import { roundUsd } from "../models/prices";
import { toIso } from "../shared/validate";
import { configOf, type EvalRow, type ItemTotals, type ItemView, toItem } from "./store/evals";
import type { Eval, EvalItem, EvalSummary } from "./types";

const FINISHED = new Set(["done", "failed", "cancelled"]);

export function evalView(row: EvalRow, rows: ItemView[], totals: ItemTotals): Eval {
  return { ...summaryOf(row, totals), items: rows.map(toItem) };
}

/** An eval's summary from its items' totals (`itemTotals`, summed in SQL). */
export function summaryOf(row: EvalRow, totals: ItemTotals): EvalSummary {
  const config = configOf(row);
  const scores: Record<string, number | null> = {};
  for (const key of config.scorer_keys) {
    const mean = totals.means[key];
    scores[key] = mean === undefined ? null : Math.round(mean * 1e6) / 1e6;
  }
  const { counts } = totals;
  const latest = Math.max(totals.last_started_at ?? -Infinity, totals.last_finished_at ?? -Infinity);
  return {
    id: row.id,
    agent: config.agent,
    dataset_id: config.dataset_id,
    dataset_version: config.dataset_version,
    scorers: config.scorers,
    scorer_keys: config.scorer_keys,
    concurrency: config.concurrency,
    status: row.status,
    progress: {
      total: Object.values(counts).reduce((a, b) => a + b, 0),
      pending: counts.pending,
      running: counts.running + counts.judging,
      finished: counts.done + counts.failed + counts.cancelled,
    },
    scores,
    cost_usd: roundUsd(totals.cost_usd),
    judge_cost_usd: roundUsd(totals.judge_cost_usd),
    // From the eval's creation to its end (or to its latest item's start or end while it runs).
    duration_ms:
      row.finished_at !== null ? row.finished_at - row.created_at : totals.last_started_at !== null ? latest - row.created_at : null,
    error: row.error,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
    finished_at: row.finished_at === null ? null : toIso(row.finished_at),
  };
}

/** Scores closer than this are the same score (judges' decimals). */
const SAME_SCORE = 1e-9;

export interface ItemComparison {
  index: number;
  a: { session_id: string | null; status: string; scores: Record<string, number | null> };
  b: { session_id: string | null; status: string; scores: Record<string, number | null> };
  /** b − a per scorer both scored; absent where either has no score. */
  deltas: Record<string, number>;
  regressed: boolean;
  improved: boolean;
}

export interface Comparison {
  a: EvalSummary;
  b: EvalSummary;
  /** The scorer keys both evals have: the ones compared. */
  scorers: string[];
  /** b's mean − a's mean per compared scorer; null where either mean is null. */
  score_deltas: Record<string, number | null>;
  items: ItemComparison[];
  /** Items where some scorer scored lower in b than in a (or scored in a and not in b). */
  regressions: number[];
  improvements: number[];
}

/** Items match by their index in the dataset; an item only one eval has is left out. */
export function compareEvals(a: Eval, b: Eval): Comparison {
  const scorers = a.scorer_keys.filter((key) => b.scorer_keys.includes(key));
  const byIndex = new Map(b.items.map((item) => [item.index, item]));
  const items: ItemComparison[] = [];
  for (const left of a.items) {
    const right = byIndex.get(left.index);
    if (!right) continue;
    const deltas: Record<string, number> = {};
    let regressed = false;
    let improved = false;
    for (const key of scorers) {
      const x = left.scores[key]?.score ?? null;
      const y = right.scores[key]?.score ?? null;
      if (x !== null && y !== null) {
        deltas[key] = Math.round((y - x) * 1e6) / 1e6;
        if (y < x - SAME_SCORE) regressed = true;
        if (y > x + SAME_SCORE) improved = true;
      } else if (x !== null && y === null && FINISHED.has(right.status)) regressed = true;
    }
    items.push({ index: left.index, a: side(left, scorers), b: side(right, scorers), deltas, regressed, improved });
  }
  const score_deltas: Record<string, number | null> = {};
  for (const key of scorers) {
    const x = a.scores[key] ?? null;
    const y = b.scores[key] ?? null;
    score_deltas[key] = x === null || y === null ? null : Math.round((y - x) * 1e6) / 1e6;
  }
  const { items: _a, ...summaryA } = a;
  const { items: _b, ...summaryB } = b;
  return {
    a: summaryA,
    b: summaryB,
    scorers,
    score_deltas,
    items,
    regressions: items.filter((i) => i.regressed).map((i) => i.index),
    improvements: items.filter((i) => i.improved && !i.regressed).map((i) => i.index),
  };
}

function side(item: EvalItem, keys: string[]): ItemComparison["a"] {
  return {
    session_id: item.session_id,
    status: item.status,
    scores: Object.fromEntries(keys.map((k) => [k, item.scores[k]?.score ?? null])),
  };
}
