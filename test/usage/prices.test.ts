import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config";
import { addCost, costOf, parsePrices, priceFor } from "../../src/models/prices";
import { budgetReached, secondsToNextUtcDay } from "../../src/usage/budgets";

const none = new Map();

describe("prices", () => {
  it("prices the catalog's models from the built-in table, the longest prefix first", () => {
    expect(priceFor(none, "claude-sonnet-4-5")).toMatchObject({ input: 3, output: 15 });
    expect(priceFor(none, "anthropic:claude-opus-4-5-20251101")).toMatchObject({ input: 5, output: 25 });
    expect(priceFor(none, "claude-opus-4-1")).toMatchObject({ input: 15, output: 75 });
    expect(priceFor(none, "openai:gpt-4o-mini")).toMatchObject({ input: 0.15 });
    expect(priceFor(none, "openai:gpt-4o")).toMatchObject({ input: 2.5 });
  });

  it("has no price for a model neither table names, and its cost is null", () => {
    expect(priceFor(none, "openai:llama-3")).toBeNull();
    expect(priceFor(none, "")).toBeNull();
    expect(costOf({ input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 }, null)).toBeNull();
    expect(addCost(1, null)).toBeNull();
  });

  it("lets MODEL_PRICES win over the built-in table, exact ids before prefixes", () => {
    const table = parsePrices(
      JSON.stringify({
        "claude-sonnet-4*": { input: 1, output: 2 },
        "claude-sonnet-4-5": { input: 9, output: 9, cache_read: 1, cache_write: 2 },
        "openai:llama*": { input: 0.1, output: 0.2 },
      }),
    );
    expect(priceFor(table, "claude-sonnet-4-5")).toEqual({ input: 9, output: 9, cache_read: 1, cache_write: 2 });
    expect(priceFor(table, "claude-sonnet-4-0")).toEqual({ input: 1, output: 2, cache_read: 0, cache_write: 0 });
    expect(priceFor(table, "openai:llama-3")).toMatchObject({ input: 0.1 });
  });

  it("costs every kind of token at its own price, to a millionth of a dollar", () => {
    const price = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
    expect(costOf({ input_tokens: 1_000_000, output_tokens: 100_000, cache_read_tokens: 10, cache_write_tokens: 1000 }, price)).toBe(
      4.503753,
    );
  });

  it("refuses a malformed MODEL_PRICES naming the entry", () => {
    for (const [text, pattern] of [
      ["[]", /object/],
      ["{", /not JSON/],
      [`{"m": {"input": -1, "output": 1}}`, /m"\]\.input/],
      [`{"m": {"input": 1}}`, /needs input and output/],
      [`{"m": {"input": 1, "output": 1, "cache": 1}}`, /cache is not a price field/],
    ] as const) {
      expect(() => parsePrices(text), text).toThrow(pattern);
    }
    expect(parsePrices(undefined).size).toBe(0);
  });
});

describe("budgets", () => {
  const budgets = { max_cost_usd_per_day: 1, max_tokens_per_day_per_subject: 100, key_max_tokens_per_day: 50 };
  it("names the first budget reached, cost first; a budget of 0 allows nothing", () => {
    expect(budgetReached({ cost_usd: 0.5, subject_tokens: 99, key_tokens: 49 }, budgets)).toBeNull();
    expect(budgetReached({ cost_usd: 1, subject_tokens: 100, key_tokens: 50 }, budgets)).toBe("tenant_cost");
    expect(budgetReached({ cost_usd: 0, subject_tokens: 100, key_tokens: 50 }, budgets)).toBe("subject_tokens");
    expect(budgetReached({ cost_usd: 0, subject_tokens: 0, key_tokens: 50 }, budgets)).toBe("key_tokens");
    expect(budgetReached({ cost_usd: 0, subject_tokens: 0, key_tokens: 0 }, { ...budgets, key_max_tokens_per_day: 0 })).toBe("key_tokens");
    expect(
      budgetReached(
        { cost_usd: 9, subject_tokens: 9e9, key_tokens: 9e9 },
        { max_cost_usd_per_day: null, max_tokens_per_day_per_subject: null, key_max_tokens_per_day: null },
      ),
    ).toBeNull();
  });

  it("renews at the next UTC midnight", () => {
    expect(secondsToNextUtcDay(Date.UTC(2030, 0, 1, 23, 59, 30))).toBe(30);
    expect(secondsToNextUtcDay(Date.UTC(2030, 0, 1, 0, 0, 0))).toBe(86_400);
  });
});

describe("the mock model's prices", () => {
  const FREE = { input: 0, output: 0, cache_read: 0, cache_write: 0 };
  const pricesWith = (vars: Record<string, string>) => parseConfig({ ...env, ...vars }).prices;

  it("prices every Anthropic model at zero when the provider key is the mock's, whatever MODEL_PRICES says of them", () => {
    const prices = pricesWith({
      ANTHROPIC_API_KEY: "mock-model",
      MODEL_PRICES: JSON.stringify({ "claude-sonnet-4*": { input: 1, output: 2 } }),
    });
    expect(priceFor(prices, "claude-sonnet-4-5")).toEqual(FREE);
    expect(priceFor(prices, "some-test-model")).toEqual(FREE);
    // Another provider is not the mock: its prices stand.
    expect(priceFor(prices, "openai:gpt-4o")).toMatchObject({ input: 2.5 });
  });

  it("prices the mock as MODEL_PRICES names it, when it does", () => {
    const prices = pricesWith({ ANTHROPIC_API_KEY: "mock-model", MODEL_PRICES: JSON.stringify({ "mock-model": { input: 1, output: 2 } }) });
    expect(priceFor(prices, "claude-sonnet-4-5")).toEqual({ input: 1, output: 2, cache_read: 0, cache_write: 0 });
  });

  it("leaves a real provider key's prices alone", () => {
    expect(priceFor(pricesWith({ ANTHROPIC_API_KEY: "sk-ant-real" }), "claude-sonnet-4-5")).toMatchObject({ input: 3, output: 15 });
  });
});
