/**
 * The tenant's usage by UTC day, model, API key, creator and agent: one row per combination, grown
 * by the difference each applied session report makes (sessions-store.ts), so a repeated or stale
 * report adds nothing. Rows older than `USAGE_RETENTION_DAYS` are dropped as reports arrive.
 */
import type { Spend, SpendParts } from "../usage/budgets";
import { costOf, priceFor, roundUsd, type PriceTable } from "../models/prices";
import { DAY_MS } from "./usage";
import { type RollupCounts, type RollupKey, type RollupRow, USAGE_DIMENSIONS, type UsageDimension } from "../usage/rollup";
import { utcDay } from "../shared/validate";

/** Days of rollups kept, today included; a range may reach back this far. */
export const USAGE_RETENTION_DAYS = 400;

/** A dimension's column, and the key it is shown under. */
export const DIMENSION_COLUMNS: Record<UsageDimension, string> = {
  day: "day",
  model: "model",
  api_key: "api_key_id",
  created_by: "created_by",
  agent: "agent_id",
};

export interface RollupQuery {
  from: string;
  to: string;
  group_by: readonly UsageDimension[];
}

export function addRollup(sql: SqlStorage, key: RollupKey, delta: RollupCounts): void {
  if (Object.values(delta).every((n) => !n)) return;
  sql.exec(
    `INSERT INTO usage_rollup (day, model, api_key_id, created_by, agent_id, runs, steps, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (day, model, api_key_id, created_by, agent_id) DO UPDATE SET
       runs = runs + excluded.runs, steps = steps + excluded.steps,
       input_tokens = input_tokens + excluded.input_tokens, output_tokens = output_tokens + excluded.output_tokens,
       cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens`,
    key.day,
    key.model,
    key.api_key_id,
    key.created_by,
    key.agent_id,
    delta.runs,
    delta.steps,
    delta.input_tokens,
    delta.output_tokens,
    delta.cache_read_tokens,
    delta.cache_write_tokens,
  );
  sql.exec(`DELETE FROM usage_rollup WHERE day < ?`, oldestKeptDay(Date.parse(`${key.day}T00:00:00Z`)));
}

/** The first UTC day kept when today is the day of `now`. */
export function oldestKeptDay(now: number): string {
  return utcDay(now - (USAGE_RETENTION_DAYS - 1) * DAY_MS);
}

/** Checks a query from the gateway (which answered bad input with a 400 already): a bad one here is a bug, thrown. */
export function parseRollupQuery(input: { from: unknown; to: unknown; group_by: unknown }): RollupQuery {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  if (typeof input.from !== "string" || !day.test(input.from)) throw new TypeError("from must be YYYY-MM-DD");
  if (typeof input.to !== "string" || !day.test(input.to)) throw new TypeError("to must be YYYY-MM-DD");
  if (!Array.isArray(input.group_by) || !input.group_by.every((name) => (USAGE_DIMENSIONS as readonly unknown[]).includes(name))) {
    throw new TypeError("group_by must list usage dimensions");
  }
  return { from: input.from, to: input.to, group_by: input.group_by as UsageDimension[] };
}

/** The columns a query groups and orders by: the model (for pricing), then the asked dimensions. */
export function rollupColumns(query: RollupQuery): string[] {
  return [...new Set(["model", ...query.group_by.map((name) => DIMENSION_COLUMNS[name])])];
}

/** Sums over `from`…`to` (inclusive), grouped by the asked dimensions and by model. Null `sql`: no tables yet. */
export function queryRollup(sql: SqlStorage | null, query: RollupQuery): RollupRow[] {
  if (sql === null) return [];
  const list = rollupColumns(query).join(", ");
  return sql
    .exec<RollupRow & Record<string, string | number>>(
      `SELECT ${list}, SUM(runs) AS runs, SUM(steps) AS steps, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens,
         SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens
       FROM usage_rollup WHERE day >= ? AND day <= ? GROUP BY ${list} ORDER BY ${list}`,
      query.from,
      query.to,
    )
    .toArray()
    .map((row) => ({ ...row }));
}

/** The rows a day's spending is summed over: the object's own rollup, or a union with others' (tenant-index/run-budgets.ts). */
export interface SpendSource {
  /** A table, or a parenthesized select of the rollup's columns. */
  from: string;
  /** The values its placeholders take, bound before the day's. */
  params: SqlStorageValue[];
}

export const OWN_ROLLUP: SpendSource = { from: "usage_rollup", params: [] };

/**
 * Today's spending for the budgets of a run of `createdBy` through `apiKeyId` ('' for none). Only
 * the `parts` asked for are read; the others are 0. Each part reads every rollup row of the day it
 * sums (the cost, one per model, key and creator), so a report of a tenant without a cost budget
 * does not price its whole day.
 */
export function spendOnDay(
  sql: SqlStorage,
  now: number,
  createdBy: string,
  apiKeyId: string,
  prices: PriceTable,
  parts: SpendParts,
  source: SpendSource = OWN_ROLLUP,
): Spend {
  const day = utcDay(now);
  const { from, params } = source;
  let cost = 0;
  if (parts.cost) {
    const byModel = sql.exec<{ model: string } & Record<string, number | string>>(
      `SELECT model, SUM(input_tokens) AS input_tokens, SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens,
         SUM(cache_write_tokens) AS cache_write_tokens FROM ${from} WHERE day = ? GROUP BY model`,
      ...params,
      day,
    );
    for (const row of byModel) cost += costOf(row as never, priceFor(prices, row.model)) ?? 0;
  }
  const tokens = `SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens)`;
  const subject = !parts.subject
    ? 0
    : (sql
        .exec<{ n: number | null }>(`SELECT ${tokens} AS n FROM ${from} WHERE created_by = ? AND day = ?`, ...params, createdBy, day)
        .one().n ?? 0);
  const key =
    apiKeyId === "" || !parts.key
      ? 0
      : (sql
          .exec<{ n: number | null }>(`SELECT ${tokens} AS n FROM ${from} WHERE api_key_id = ? AND day = ?`, ...params, apiKeyId, day)
          .one().n ?? 0);
  return { cost_usd: roundUsd(cost), subject_tokens: subject, key_tokens: key };
}
