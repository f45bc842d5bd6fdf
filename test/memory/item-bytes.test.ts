/**
 * The bytes `max_memory_bytes` counts per item (item-bytes.ts) against what the store's database
 * grows by as the same items are written: the estimate must not fall short of the storage, for
 * large values of common or all-distinct words, for many small items, and for new versions.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import * as store from "../../src/memory/store";
import { memoryStoreStub } from "../../src/objects";
import { migrate } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

/** `chars` characters of words drawn from a vocabulary of `vocabulary` words. */
function words(chars: number, seed: number, vocabulary: number): string {
  const out: string[] = [];
  for (let x = seed, length = 0; length < chars;) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const word = `w${(x % vocabulary).toString(36)}`;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(" ").slice(0, chars);
}

const VECTOR = { model: "m", values: new Float32Array(1024).fill(0.03) };

/** Writes `values` as items (then each again as a second version), returning the database's growth and the count kept. */
async function grows(values: Record<string, unknown>[]): Promise<{ first: [number, number]; second: [number, number] }> {
  return runInDurableObject(memoryStoreStub(env, freshTenant("bytes")), (_instance, state) => {
    const sql = state.storage.sql;
    migrate(state.storage, MEMORY_STORE_MIGRATIONS);
    const write = (i: number, value: Record<string, unknown>, now: number) =>
      state.storage.transactionSync(() => {
        const previous = store.liveItem(sql, "users.u1", `k${i}`, now);
        const item = { namespace: "users.u1", key: `k${i}`, value, createdBy: "t", now, ttlMs: null, refreshTtl: false, vector: VECTOR };
        store.writeItem(sql, item, previous);
      });
    const start = sql.databaseSize;
    values.forEach((value, i) => write(i, value, 1));
    const first: [number, number] = [sql.databaseSize - start, store.totalBytes(sql)];
    values.forEach((value, i) => write(i, values[(i + 1) % values.length]!, 2));
    return { first, second: [sql.databaseSize - start, store.totalBytes(sql)] };
  });
}

describe("memory bytes as counted against storage", () => {
  for (const [label, vocabulary] of [
    ["common words", 5_000],
    ["all-distinct words", 1e9],
  ] as const)
    it(`counts no less than the storage of 64 KiB values of ${label}`, async () => {
      const values = Array.from({ length: 20 }, (_, i) => ({ text: words(64 * 1024 - 12, i + 7, vocabulary) }));
      const { first, second } = await grows(values);
      expect(first[1]).toBeGreaterThanOrEqual(first[0]);
      expect(second[1]).toBeGreaterThanOrEqual(second[0]);
      // Not wildly above it either: within 60 % of the storage.
      expect(first[1]).toBeLessThan(first[0] * 1.6);
    });

  it("counts no less than the storage of many small items", async () => {
    const values = Array.from({ length: 1_000 }, (_, i) => ({ text: words(400, i + 7, 5_000), kind: "note" }));
    const { first, second } = await grows(values);
    expect(first[1]).toBeGreaterThanOrEqual(first[0]);
    expect(second[1]).toBeGreaterThanOrEqual(second[0]);
  });
});
