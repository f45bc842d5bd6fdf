/**
 * Turns the tenant indexes' rollup rows (grouped by the asked dimensions and by model) into the
 * usage answer: rows merged by the asked dimensions only, each priced, and totals. Pure.
 */
import type { RollupRow } from "./rollup";
import { addCost, costOf, type PriceTable, priceFor } from "../models/prices";

/** A dimension as the query names it, and the key its value is shown under. */
export const DIMENSION_KEYS = {
  tenant: "tenant_id",
  day: "day",
  model: "model",
  api_key: "api_key_id",
  created_by: "created_by",
  agent: "agent_id",
} as const;
export type Dimension = keyof typeof DIMENSION_KEYS;

export interface UsageCounts {
  runs: number;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Null when some of the row's tokens are of a model without a price. */
  cost_usd: number | null;
}

/** The grouped dimensions (null: none, or not known for usage from before the rollups) and the sums. */
export type UsageRow = Partial<Record<(typeof DIMENSION_KEYS)[Dimension], string | null>> & UsageCounts;

export const ZERO_COUNTS: UsageCounts = {
  runs: 0,
  steps: 0,
  input_tokens: 0,
  output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0,
};

const STORED_KEY: Record<Dimension, string> = {
  tenant: "tenant_id",
  day: "day",
  model: "model",
  api_key: "api_key_id",
  created_by: "created_by",
  agent: "agent_id",
};

/** Merges `rows` (each with its `tenant_id` when more than one tenant is asked) by `groupBy`, in that dimension order. */
export function usageReport(
  rows: readonly (RollupRow & { tenant_id?: string })[],
  groupBy: readonly Dimension[],
  prices: PriceTable,
): { data: UsageRow[]; totals: UsageCounts } {
  const merged = new Map<string, UsageRow>();
  let totals: UsageCounts = { ...ZERO_COUNTS };
  for (const row of rows) {
    const dims: Record<string, string | null> = {};
    for (const name of groupBy) {
      const value = (row as unknown as Record<string, unknown>)[STORED_KEY[name]];
      dims[DIMENSION_KEYS[name]] = typeof value === "string" && value !== "" ? value : null;
    }
    const key = JSON.stringify(groupBy.map((name) => dims[DIMENSION_KEYS[name]]));
    const counts = countsOf(row, prices);
    merged.set(key, { ...dims, ...add(merged.get(key) ?? ZERO_COUNTS, counts) });
    totals = add(totals, counts);
  }
  const data = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  return { data, totals };
}

function countsOf(row: RollupRow, prices: PriceTable): UsageCounts {
  const tokens = row.input_tokens + row.output_tokens + row.cache_read_tokens + row.cache_write_tokens;
  return {
    runs: row.runs,
    steps: row.steps,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    cache_read_tokens: row.cache_read_tokens,
    cache_write_tokens: row.cache_write_tokens,
    // No tokens cost nothing, priced or not.
    cost_usd: tokens === 0 ? 0 : costOf(row, priceFor(prices, row.model)),
  };
}

function add(a: UsageCounts, b: UsageCounts): UsageCounts {
  return {
    runs: a.runs + b.runs,
    steps: a.steps + b.steps,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
    cost_usd: addCost(a.cost_usd, b.cost_usd),
  };
}
