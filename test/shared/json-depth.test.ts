import { describe, expect, it } from "vitest";
import { jsonDepth } from "../../src/shared/json-depth";

describe("jsonDepth", () => {
  it.each([
    [1, 0],
    ["x", 0],
    [null, 0],
    [{}, 1],
    [[], 1],
    [{ a: [1, { b: {} }] }, 4],
    [[[[[]]]], 4],
  ])("measures %j as %i deep", (value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  it("measures 100000 levels without running out of stack", () => {
    let value: unknown = [];
    for (let i = 1; i < 100_000; i++) value = [value];
    expect(jsonDepth(value)).toBe(100_000);
  });
});
