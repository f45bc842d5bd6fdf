import { describe, expect, it } from "vitest";
import { sumUsage } from "../../src/sessions/object/subagents/report";

describe("a family's usage summed", () => {
  it("keeps the reasoning tokens a descendant reported apart", () => {
    const own = { steps: 2, input_tokens: 10, output_tokens: 20, cache_read_tokens: 1, cache_write_tokens: 2 };
    const child = { steps: 1, input_tokens: 5, output_tokens: 8, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 6 };
    expect(sumUsage(own, child)).toEqual({
      steps: 3,
      input_tokens: 15,
      output_tokens: 28,
      cache_read_tokens: 1,
      cache_write_tokens: 2,
      reasoning_tokens: 6,
    });
  });

  it("adds no reasoning tokens where neither reported them", () => {
    const usage = { steps: 1, input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0 };
    expect(sumUsage(usage, usage)).not.toHaveProperty("reasoning_tokens");
  });
});
