import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { balance, e2eShards, UNMEASURED_SECONDS } from "../../scripts/e2e-shards.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("the end-to-end files split for npm test", () => {
  it("splits by measured time, not by count: one long file weighs as much as many short ones", () => {
    const shards = balance(["long", "a", "b", "c", "d"], { long: 400, a: 100, b: 100, c: 100, d: 100 }, 2);
    expect(shards.map((shard) => shard.names)).toEqual([["long"], ["a", "b", "c", "d"]]);
    expect(shards.map((shard) => shard.seconds)).toEqual([400, 400]);
  });

  it("weighs a file it has not measured as a minute", () => {
    const shards = balance(["new", "old"], { old: UNMEASURED_SECONDS - 1 }, 2);
    expect(shards.map((shard) => shard.names)).toEqual([["new"], ["old"]]);
  });

  it("puts every end-to-end file in exactly one list", async () => {
    const { readdirSync } = await import("node:fs");
    const files = readdirSync(join(root, "test/e2e"))
      .filter((name) => name.endsWith(".test.ts"))
      .map((name) => `test/e2e/${name}`);
    const shards = e2eShards(root, "test/e2e", 2);
    expect(shards).toHaveLength(2);
    expect(shards.flat().sort()).toEqual(files.sort());
  });
});
