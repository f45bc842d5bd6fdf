/**
 * The shape of the tenant's usage rollup: its dimensions, key and counts. Shared by the tenant
 * index, which stores and sums the rows (src/tenants/usage-rollup.ts), and the report, which
 * prices and merges them (report.ts), so the report never reaches into the index's modules.
 */

export const USAGE_DIMENSIONS = ["day", "model", "api_key", "created_by", "agent"] as const;
export type UsageDimension = (typeof USAGE_DIMENSIONS)[number];

export interface RollupKey {
  day: string;
  model: string;
  /** '' where there is none (a JWT, no agent) or it is not known (usage from before the rollups). */
  api_key_id: string;
  created_by: string;
  agent_id: string;
}

export interface RollupCounts {
  runs: number;
  steps: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A rollup row as `queryRollup` returns it: the grouped columns (always with `model`, for pricing) and the sums. */
export type RollupRow = Partial<RollupKey> & { model: string } & RollupCounts;
