/**
 * Searches within a namespace prefix of more items than a scan reads, on storage written at
 * version 9 and migrated to 10: a listing, a filter and a search by meaning find the prefix's
 * newest items on the namespace index, however many newer items other namespaces hold.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import * as store from "../../src/memory/store";
import { MAX_SEARCH_SCAN, MAX_VECTOR_SCAN, ScanExceeded, search } from "../../src/memory/search";
import type { SearchInput } from "../../src/memory/types";
import { memoryStoreStub } from "../../src/objects";
import { migrate, schemaVersion } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

const NOW = 1_000_000;
/** The prefix's items, written first (older than every other). */
const BIG = MAX_SEARCH_SCAN + 100;
/** Newer items elsewhere: more than a scan, and more than the vectors one search compares. */
const OTHER = MAX_VECTOR_SCAN + 100;
const DIMENSIONS = 8;

function unit(axis: number): Float32Array {
  const values = new Float32Array(DIMENSIONS);
  values[axis] = 1;
  return values;
}

function fill(sql: SqlStorage): void {
  for (let i = 0; i < BIG + OTHER; i++) {
    const big = i < BIG;
    store.writeItem(
      sql,
      {
        namespace: big ? `big.n${i % 2}` : "other",
        key: `k${i}`,
        value: { text: i === 0 ? "needle" : `item ${i}`, kind: i % 2 === 0 ? "even" : "odd" },
        createdBy: "t",
        now: NOW + i,
        ttlMs: null,
        refreshTtl: false,
        vector: { model: "m", values: unit(big ? 0 : 1) },
      },
      null,
    );
  }
}

function input(prefixes: string[][], query: string | null, filter: SearchInput["filter"], limit = 10, offset = 0): SearchInput {
  return { prefixes, query, filter, limit, offset, now: NOW + BIG + OTHER };
}

const keyNumbers = (items: { key: string }[]) => items.map((item) => Number(item.key.slice(1)));

describe("memory search within a large namespace prefix", () => {
  it("lists, filters and compares vectors of the prefix's newest items after migration 10", async () => {
    await runInDurableObject(memoryStoreStub(env, freshTenant("big")), (_instance, state) => {
      const sql = state.storage.sql;
      migrate(state.storage, MEMORY_STORE_MIGRATIONS.slice(0, 9));
      state.storage.transactionSync(() => fill(sql));
      migrate(state.storage, MEMORY_STORE_MIGRATIONS);
      expect(schemaVersion(state.storage)).toBe(10);

      // No query, no filter: the prefix's newest, though the store's newest 1,000 are all elsewhere.
      expect(keyNumbers(search(sql, input([["big"]], null, {})))).toEqual(Array.from({ length: 10 }, (_, i) => BIG - 1 - i));
      expect(keyNumbers(search(sql, input([["big", "n1"]], null, {}, 3, 2)))).toEqual([BIG - 5, BIG - 7, BIG - 9]);
      // A filter reads the prefix's newest values; one that none of them meet is refused, not answered short.
      expect(keyNumbers(search(sql, input([["big"]], null, { kind: "even" }, 2)))).toEqual([BIG - 2, BIG - 4]);
      expect(() => search(sql, input([["big"]], null, { kind: "none" }))).toThrow(ScanExceeded);
      // An offset past the scan, in a prefix holding more than it, is refused as such.
      expect(() => search(sql, input([["big"]], null, {}, 10, MAX_SEARCH_SCAN))).toThrow(ScanExceeded);

      // By meaning: the word is one item's, the vector is every item's of the prefix.
      const near = { model: "m", values: unit(0), minSimilarity: 0.5 };
      const found = search(sql, input([["big"]], "needle", {}, 20), near);
      expect(found).toHaveLength(20);
      expect(found.every((item) => item.namespace[0] === "big")).toBe(true);
    });
  });
});
