/**
 * What a tenant shard and the tenant index exchange so that a sharded tenant's daily budgets are
 * judged against one count of its spending (tenant-index/shard-spend.ts keeps it, shards/spend.ts
 * sends it): the shard's spending of the day by model, API key and creator, the tokens its runs
 * going still hold reserved, and back the figures of everywhere else. Types and checks only.
 */
import { requireInt, requireString } from "../shared/validate";
import type * as T from "./types";
import type { Spend } from "../usage/budgets";

/** One row of a shard's spending of the day: its totals, which only grow within the day. */
export interface SpendRow {
  model: string;
  api_key_id: string;
  created_by: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

/** A run going on the shard, and the tokens of its reservation it has not spent yet. */
export interface HeldTokens {
  session_id: string;
  tokens: number;
}

/** A creator and an API key ('' for none) whose spending the shard wants the figures of. */
export interface SpendPair {
  created_by: string;
  api_key_id: string;
}

export interface SpendPush {
  /** The UTC day (YYYY-MM-DD) the rows and reservations are of. */
  day: string;
  /** The rows that changed since the shard's last push that the index answered (all of them after a restart). */
  rows: SpendRow[];
  /** Every reservation the shard holds today: one the index holds for this shard and not listed has ended. */
  held: HeldTokens[];
  pairs: SpendPair[];
}

/** The spending of everywhere but the asking shard, today, for one creator and key. */
export type PairFigures = Omit<Spend, "cost_usd"> & { key_max_tokens_per_day: number | null };

export interface SpendFigures {
  /** Whether any daily budget is set: the tenant's limits, or an API key's `max_tokens_per_day`. */
  budgeted: boolean;
  day: string;
  /** The tenant's tokens and cost today everywhere but the asking shard. */
  tokens: number;
  cost_usd: number;
  /** In the order of the push's `pairs`. */
  pairs: PairFigures[];
}

export interface SpendAnswer {
  figures: SpendFigures;
  /** The judgement of the run the shard asked to admit, when it asked. */
  admission?: T.RunAdmission;
  /** The tokens the index holds reserved for that run under the shard's name (0: none, no token budget counts it). */
  reserved?: number;
}

/** A push holds at most this many rows, reservations and pairs: a shard sends the rest in its next push. */
export const MAX_SPEND_ITEMS = 1_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function list<V>(name: string, value: unknown, item: (raw: Record<string, unknown>, at: string) => V): V[] {
  if (!Array.isArray(value) || value.length > MAX_SPEND_ITEMS)
    throw new TypeError(`${name} must be an array of at most ${MAX_SPEND_ITEMS}`);
  return value.map((raw: unknown, i) => {
    if (typeof raw !== "object" || raw === null) throw new TypeError(`${name}[${i}] must be an object`);
    return item(raw as Record<string, unknown>, `${name}[${i}]`);
  });
}

/** A push as the index takes it; anything else throws (a shard of other code is a bug, not a user's input). */
export function parseSpendPush(value: unknown): SpendPush {
  if (typeof value !== "object" || value === null) throw new TypeError("push must be an object");
  const raw = value as Record<string, unknown>;
  if (typeof raw.day !== "string" || !DAY.test(raw.day)) throw new TypeError("push.day must be YYYY-MM-DD");
  const text = (r: Record<string, unknown>, at: string, key: string) => {
    const v = r[key];
    if (typeof v !== "string") throw new TypeError(`${at}.${key} must be a string`);
    return v;
  };
  const count = (r: Record<string, unknown>, at: string, key: string) => requireInt(`${at}.${key}`, r[key], 0);
  return {
    day: raw.day,
    rows: list("push.rows", raw.rows, (r, at) => ({
      model: text(r, at, "model"),
      api_key_id: text(r, at, "api_key_id"),
      created_by: text(r, at, "created_by"),
      input_tokens: count(r, at, "input_tokens"),
      output_tokens: count(r, at, "output_tokens"),
      cache_read_tokens: count(r, at, "cache_read_tokens"),
      cache_write_tokens: count(r, at, "cache_write_tokens"),
    })),
    held: list("push.held", raw.held, (r, at) => ({
      session_id: requireString(`${at}.session_id`, r.session_id),
      tokens: count(r, at, "tokens"),
    })),
    pairs: list("push.pairs", raw.pairs, (r, at) => ({ created_by: text(r, at, "created_by"), api_key_id: text(r, at, "api_key_id") })),
  };
}

export function pairKey(pair: SpendPair): string {
  return `${pair.created_by}\u0000${pair.api_key_id}`;
}
