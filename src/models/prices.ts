/**
 * What a model's tokens cost: `MODEL_PRICES` (USD per million tokens, by model id or `prefix*`)
 * over a built-in table for the catalog's models. A model neither names has no price, and its
 * cost is null: never a guess. Pure.
 */
import { canonicalModel } from "./catalog";
import { MOCK_PROVIDER_KEY } from "./mock";

/** USD per million tokens of each kind; `web_search`: USD per 1,000 searches of the provider's own search tool. */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  web_search?: number;
}

/** Canonical pattern (`provider:model` or `provider:prefix*`) → price. */
export type PriceTable = ReadonlyMap<string, ModelPrice>;

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Billed per search, where the provider reported them. */
  web_search_requests?: number;
}

/** Entries of `MODEL_PRICES`; a longer list is a mistake, not a price sheet. */
export const MAX_PRICE_ENTRIES = 500;
/** A price above this (USD per million tokens) is a typo in the units, not a model. */
export const MAX_PRICE_USD_PER_MILLION = 100_000;
/** Costs are kept to a millionth of a dollar: below that, float noise. */
const COST_DIGITS = 6;

const p = (input: number, output: number, cache_read: number, cache_write: number): ModelPrice => ({
  input,
  output,
  cache_read,
  cache_write,
});
/** Anthropic's web search: USD 10 per 1,000 searches, on every model that has it. */
const ANTHROPIC_WEB_SEARCH_PER_THOUSAND = 10;
const claude = (input: number, output: number, cache_read: number, cache_write: number): ModelPrice => ({
  ...p(input, output, cache_read, cache_write),
  web_search: ANTHROPIC_WEB_SEARCH_PER_THOUSAND,
});

/**
 * The providers' published list prices for the models the catalog knows (late 2026). Anthropic
 * bills cache writes at 1.25× input and reads at 0.1×; OpenAI caches for free and bills reads.
 * An operator with other terms sets `MODEL_PRICES`, which wins entry by entry.
 */
export const BUILTIN_PRICES: PriceTable = new Map<string, ModelPrice>([
  ["anthropic:claude-opus-4-5*", claude(5, 25, 0.5, 6.25)],
  ["anthropic:claude-opus-4*", claude(15, 75, 1.5, 18.75)],
  ["anthropic:claude-sonnet-4*", claude(3, 15, 0.3, 3.75)],
  ["anthropic:claude-3-7-sonnet*", claude(3, 15, 0.3, 3.75)],
  ["anthropic:claude-3-5-sonnet*", claude(3, 15, 0.3, 3.75)],
  ["anthropic:claude-haiku-4*", claude(1, 5, 0.1, 1.25)],
  ["anthropic:claude-3-5-haiku*", claude(0.8, 4, 0.08, 1)],
  ["anthropic:claude-3-haiku*", claude(0.25, 1.25, 0.03, 0.3)],
  ["openai:gpt-5*", p(1.25, 10, 0.125, 0)],
  ["openai:gpt-5-mini*", p(0.25, 2, 0.025, 0)],
  ["openai:gpt-5-nano*", p(0.05, 0.4, 0.005, 0)],
  ["openai:gpt-4.1*", p(2, 8, 0.5, 0)],
  ["openai:gpt-4.1-mini*", p(0.4, 1.6, 0.1, 0)],
  ["openai:gpt-4.1-nano*", p(0.1, 0.4, 0.025, 0)],
  ["openai:gpt-4o*", p(2.5, 10, 1.25, 0)],
  ["openai:gpt-4o-mini*", p(0.15, 0.6, 0.075, 0)],
  ["openai:o3*", p(2, 8, 0.5, 0)],
  ["openai:o4-mini*", p(1.1, 4.4, 0.275, 0)],
]);

/**
 * Parses `MODEL_PRICES` into canonical patterns; throws a TypeError naming the bad entry.
 * Absent or empty: no entries (the built-in table still applies).
 */
export function parsePrices(text: string | undefined): PriceTable {
  if (text === undefined || text.trim() === "") return new Map();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TypeError("MODEL_PRICES is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new TypeError("MODEL_PRICES must be an object of model → prices");
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > MAX_PRICE_ENTRIES) throw new TypeError(`MODEL_PRICES has more than ${MAX_PRICE_ENTRIES} entries`);
  const table = new Map<string, ModelPrice>();
  for (const [model, raw] of entries) {
    if (model === "" || model.length > 200) throw new TypeError(`MODEL_PRICES has an empty or overlong model`);
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new TypeError(`MODEL_PRICES["${model}"] must be an object`);
    const fields = raw as Record<string, unknown>;
    const price: ModelPrice = { input: 0, output: 0, cache_read: 0, cache_write: 0, web_search: 0 };
    for (const key of Object.keys(fields)) {
      if (!(key in price))
        throw new TypeError(`MODEL_PRICES["${model}"].${key} is not a price field (input, output, cache_read, cache_write, web_search)`);
    }
    for (const key of ["input", "output", "cache_read", "cache_write", "web_search"] as const) {
      const n = fields[key] ?? 0;
      if (typeof n !== "number" || !Number.isFinite(n) || n < 0 || n > MAX_PRICE_USD_PER_MILLION) {
        throw new TypeError(`MODEL_PRICES["${model}"].${key} must be a number from 0 to ${MAX_PRICE_USD_PER_MILLION}`);
      }
      price[key] = n;
    }
    if (fields.input === undefined || fields.output === undefined) throw new TypeError(`MODEL_PRICES["${model}"] needs input and output`);
    if (fields.web_search === undefined) delete price.web_search;
    table.set(canonicalModel(model), price);
  }
  return table;
}

const FREE: ModelPrice = { input: 0, output: 0, cache_read: 0, cache_write: 0 };

/**
 * The prices when the mock model answers for Anthropic (its key is `MOCK_PROVIDER_KEY`): every
 * Anthropic model's tokens are the mock's, free unless `MODEL_PRICES` names `mock-model`, so a
 * development run never looks like a real model's spend. Other providers keep their prices.
 */
export function mockPrices(configured: PriceTable): PriceTable {
  const named = configured.get(canonicalModel(MOCK_PROVIDER_KEY)) ?? FREE;
  const table = new Map([...configured].filter(([pattern]) => !pattern.startsWith("anthropic:")));
  table.set("anthropic:*", named);
  return table;
}

/** The configured entries first, then the built-in ones; within each, the exact id, then the longest prefix. */
export function priceFor(configured: PriceTable, model: string): ModelPrice | null {
  if (model === "") return null;
  let known = matched.get(configured);
  if (!known) matched.set(configured, (known = new Map()));
  const hit = known.get(model);
  if (hit !== undefined) return hit;
  const id = canonicalModel(model);
  const price = bestMatch(configured, id) ?? bestMatch(BUILTIN_PRICES, id);
  // A table is parsed once per isolate and never changed: each model's match is kept with it (bounded, as a day's models are few but need not be).
  if (known.size >= MATCHES_KEPT) known.clear();
  known.set(model, price);
  return price;
}

/** Each price table's answers by model name, as `priceFor` found them. */
const matched = new WeakMap<PriceTable, Map<string, ModelPrice | null>>();
const MATCHES_KEPT = 1_000;

function bestMatch(table: PriceTable, id: string): ModelPrice | null {
  const exact = table.get(id);
  if (exact) return exact;
  let best: { length: number; price: ModelPrice } | null = null;
  for (const [pattern, price] of table) {
    if (!pattern.endsWith("*")) continue;
    const prefix = pattern.slice(0, -1);
    if (id.startsWith(prefix) && (best === null || prefix.length > best.length)) best = { length: prefix.length, price };
  }
  return best?.price ?? null;
}

/** USD for `tokens` at `price`; null without a price. */
export function costOf(tokens: TokenCounts, price: ModelPrice | null): number | null {
  if (price === null) return null;
  const micro =
    tokens.input_tokens * price.input +
    tokens.output_tokens * price.output +
    tokens.cache_read_tokens * price.cache_read +
    tokens.cache_write_tokens * price.cache_write;
  const searches = ((tokens.web_search_requests ?? 0) * (price.web_search ?? 0)) / 1_000;
  return roundUsd(micro / 1_000_000 + searches);
}

/** Adds costs; null (an unpriced part) makes the sum null, so a total never hides a gap. */
export function addCost(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : roundUsd(a + b);
}

export function roundUsd(usd: number): number {
  const f = 10 ** COST_DIGITS;
  return Math.round(usd * f) / f;
}

/** What `tokens` cost at `model`'s price, in USD, for a budget's check: a model without a price costs nothing. */
export function budgetCostUsd(configured: PriceTable, model: string, tokens: TokenCounts): number {
  return costOf(tokens, priceFor(configured, model)) ?? 0;
}
