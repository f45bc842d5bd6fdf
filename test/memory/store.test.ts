/**
 * The memory store's queries as a store grows: what a put's count and a search within a
 * namespace read (SQLite's rows read, as the runtime counts them), and that the index's scope
 * finds exactly the items the namespace test would.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import { MAX_SEGMENT_CHARS } from "../../src/session-config/memory-namespace";
import * as store from "../../src/memory/store";
import * as memorySearch from "../../src/memory/search";
import { scopeText } from "../../src/memory/item-row";
import type { ScoredItem, SearchInput } from "../../src/memory/types";
import { toHex } from "../../src/shared/hex";
import { memoryStoreStub } from "../../src/objects";
import { migrate } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

const USERS = 100;
const ITEMS = 2_000;
const NOW = 1_000;

/** The store's SQL handle, counting the rows each statement read. */
function counting(sql: SqlStorage) {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  const exec = (query: string, ...bindings: unknown[]) => {
    const cursor = sql.exec(query, ...bindings);
    cursors.push(cursor);
    return cursor;
  };
  return { sql: { exec } as unknown as SqlStorage, rowsRead: () => cursors.reduce((sum, cursor) => sum + cursor.rowsRead, 0) };
}

/** A store of `ITEMS` items over `USERS` users, each holding the word "common" and a word of its own, half of them `kind: "even"`. */
async function withFilledStore<T>(run: (storage: DurableObjectStorage) => T): Promise<T> {
  return runInDurableObject(memoryStoreStub(env, freshTenant("mem")), (_instance, state) => {
    migrate(state.storage, MEMORY_STORE_MIGRATIONS);
    state.storage.transactionSync(() => {
      for (let i = 0; i < ITEMS; i++) {
        const user = i % USERS;
        const namespace = i % 4 === 0 ? `users.u${user}.episodes` : `users.u${user}`;
        store.writeItem(
          state.storage.sql,
          {
            namespace,
            key: `k${i}`,
            value: { text: `common note ${i % 7 === 0 ? "rare" : "plain"} number${i}`, kind: i % 2 === 0 ? "even" : "odd" },
            createdBy: "t",
            now: NOW + i,
            ttlMs: null,
            refreshTtl: false,
          },
          null,
        );
      }
    });
    return run(state.storage);
  });
}

function byScore(items: ScoredItem[]): [string, number | null][] {
  return items.map((item): [string, number | null] => [item.key, item.score]).sort((a, b) => b[1]! - a[1]! || a[0].localeCompare(b[0]));
}

function searchInput(prefixes: string[][], query: string, limit = 100): SearchInput {
  return { prefixes, query, filter: {}, limit, offset: 0, now: NOW };
}

describe("memory store at scale", () => {
  it("counts a tenant's items from one row, whatever it holds, and keeps the count through writes and deletes", async () => {
    await withFilledStore((storage) => {
      const read = counting(storage.sql);
      expect(store.countItems(read.sql, NOW)).toBe(ITEMS);
      // The count's row, and the expiry index's (empty) range of expired rows.
      expect(read.rowsRead()).toBeLessThanOrEqual(2);
      const plan = storage.sql
        .exec<{ detail: string }>("EXPLAIN QUERY PLAN SELECT n FROM item_count")
        .toArray()
        .map((row) => row.detail);
      expect(plan.join(" | ")).not.toMatch(/\bitems\b/);
      store.deleteItem(storage.sql, "users.u1", "k1");
      store.writeItem(
        storage.sql,
        { namespace: "users.u1", key: "k1", value: { v: 1 }, createdBy: "t", now: NOW, ttlMs: null, refreshTtl: false },
        null,
      );
      store.writeItem(
        storage.sql,
        { namespace: "users.u1", key: "extra", value: { v: 1 }, createdBy: "t", now: NOW, ttlMs: 1, refreshTtl: false },
        null,
      );
      expect(store.countItems(storage.sql, NOW)).toBe(ITEMS + 1);
      // Expired, it counts no more, even before the sweep reaches it.
      expect(store.countItems(storage.sql, NOW + 10)).toBe(ITEMS);
      // The sweep deletes rows as any delete does.
      expect(store.sweepExpired(storage.sql, NOW + 10)).toBe(1);
      expect(store.countItems(storage.sql, NOW + 10)).toBe(storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM items").one().n);
    });
  });

  it("searches within a user's namespace reading that user's matches, not every item that holds the word", async () => {
    await withFilledStore((storage) => {
      const read = counting(storage.sql);
      const found = memorySearch.search(read.sql, searchInput([["users", "u7"]], "common"));
      expect(found).toHaveLength(ITEMS / USERS);
      // Every item holds "common": the search before scopes read each of them and its row (4,000+).
      expect(read.rowsRead()).toBeLessThan(ITEMS / 10);
    });
  });

  it("finds within prefixes exactly the items the whole tenant's search finds there, with the same scores", async () => {
    await withFilledStore((storage) => {
      const everywhere = memorySearch.search(storage.sql, searchInput([[]], "rare note", ITEMS));
      const cases: string[][][] = [
        [["users", "u7"]],
        [["users", "u8", "episodes"]],
        [
          ["users", "u3"],
          ["users", "u14"],
        ],
        [["users"]],
      ];
      for (const prefixes of cases) {
        const within = (namespace: string[]) => prefixes.some((prefix) => prefix.every((segment, i) => namespace[i] === segment));
        const scoped = memorySearch.search(storage.sql, searchInput(prefixes, "rare note", ITEMS));
        // Equal scores come in no set order: compared by score, then key.
        expect(byScore(scoped), JSON.stringify(prefixes)).toEqual(byScore(everywhere.filter((item) => within(item.namespace))));
        // With a filter each match's row is read (another query): the same items, the same scores.
        const even = memorySearch.search(storage.sql, { ...searchInput(prefixes, "rare note", ITEMS), filter: { kind: "even" } });
        expect(byScore(even), JSON.stringify(prefixes)).toEqual(byScore(scoped.filter((item) => item.value.kind === "even")));
        expect(scoped.length, JSON.stringify(prefixes)).toBeGreaterThan(0);
        expect(scoped.map((item) => item.score)).toEqual(scoped.map((item) => item.score).sort((a, b) => b! - a!));
      }
      // "u7" is not a prefix of "u70": segments are compared whole.
      expect(
        memorySearch.search(storage.sql, searchInput([["users", "u7"]], "rare note", ITEMS)).some((item) => item.namespace[1] === "u70"),
      ).toBe(false);
    });
  });

  it("ranks a whole tenant's matches in the index, reading only the page's rows", async () => {
    await withFilledStore((storage) => {
      const read = counting(storage.sql);
      expect(memorySearch.search(read.sql, searchInput([[]], "common", 10))).toHaveLength(10);
      // The index's matches and their lengths (BM25 reads both), and ten rows; the join read every
      // match's row too (6,000+).
      expect(read.rowsRead()).toBeLessThan(ITEMS * 2 + 100);
      const filtered = counting(storage.sql);
      expect(memorySearch.search(filtered.sql, { ...searchInput([[]], "common", 10), filter: { kind: "odd" } })).toHaveLength(10);
      // A filter reads the rows of the best `MAX_SEARCH_SCAN` matches at most; it read every match's (4,000+).
      expect(filtered.rowsRead()).toBeLessThan(ITEMS * 2);
    });
  });

  it("leaves out a word most items hold when the query has a rarer one, and keeps it otherwise", async () => {
    await withFilledStore((storage) => {
      expect(memorySearch.distinctiveTerms(storage.sql, ["common", "rare"])).toEqual(["rare"]);
      expect(memorySearch.distinctiveTerms(storage.sql, ["common", "plain"])).toEqual(["common", "plain"]);
      expect(memorySearch.distinctiveTerms(storage.sql, ["common", "xyzzy"])).toEqual(["common", "xyzzy"]);
      expect(memorySearch.distinctiveTerms(storage.sql, ["common"])).toEqual(["common"]);
      const read = counting(storage.sql);
      const found = memorySearch.search(read.sql, searchInput([[]], "common rare", 10));
      expect(found).toHaveLength(10);
      for (const item of found) expect(item.value.text).toContain("rare");
      const rareOnly = read.rowsRead();
      const again = counting(storage.sql);
      memorySearch.search(again.sql, searchInput([[]], "common", 10));
      expect(rareOnly).toBeLessThan(again.rowsRead());
    });
  });

  it("leaves out expired items the sweep has not reached, however many rank first, and pages past them", async () => {
    await withFilledStore((storage) => {
      // Thirty items whose scores all differ: the word once to thirty times among thirty words.
      for (let k = 1; k <= 30; k++) {
        const text = [...Array<string>(k).fill("zeta"), ...Array<string>(30 - k).fill("filler")].join(" ");
        store.writeItem(
          storage.sql,
          { namespace: "t", key: `z${k}`, value: { text }, createdBy: "t", now: NOW, ttlMs: null, refreshTtl: false },
          null,
        );
      }
      const keys = (items: ScoredItem[]) => items.map((item) => item.key);
      const best = Array.from({ length: 30 }, (_, i) => `z${30 - i}`);
      expect(keys(memorySearch.search(storage.sql, searchInput([[]], "zeta", 30)))).toEqual(best);
      // The ten best expire: the next ten are the first page now, and the page after follows them.
      for (const key of best.slice(0, 10)) storage.sql.exec("UPDATE items SET expires_at = ? WHERE key = ?", NOW, key);
      expect(keys(memorySearch.search(storage.sql, searchInput([[]], "zeta", 10)))).toEqual(best.slice(10, 20));
      expect(keys(memorySearch.search(storage.sql, { ...searchInput([[]], "zeta", 10), offset: 10 }))).toEqual(best.slice(20, 30));
      expect(keys(memorySearch.search(storage.sql, { ...searchInput([[]], "zeta", 10), now: NOW - 1 }))).toEqual(best.slice(0, 10));
    });
  });

  it("finds an item in a namespace of four segments of the longest length by each of its prefixes", async () => {
    await withFilledStore((storage) => {
      const segments = ["a", "b", "c", "d"].map((letter) => letter.repeat(MAX_SEGMENT_CHARS));
      store.writeItem(
        storage.sql,
        { namespace: segments.join("."), key: "deep", value: { text: "common" }, createdBy: "t", now: NOW, ttlMs: null, refreshTtl: false },
        null,
      );
      for (let depth = 1; depth <= segments.length; depth++) {
        expect(memorySearch.search(storage.sql, searchInput([segments.slice(0, depth)], "common")).map((item) => item.key)).toEqual([
          "deep",
        ]);
      }
    });
  });

  it("looks a query's words up in the text only, never among the scope's tokens", async () => {
    await withFilledStore((storage) => {
      const scope = scopeText("users.u7").split(" ");
      for (const token of new Set(scope)) expect(memorySearch.search(storage.sql, searchInput([[]], token))).toEqual([]);
    });
  });

  it("gives every item four scope tokens: its prefixes, the whole namespace repeated", () => {
    expect(scopeText("a")).toBe("61 61 61 61");
    expect(scopeText("a.b")).toBe("61 612e62 612e62 612e62");
    expect(scopeText("users.u_1.x.y").split(" ")).toEqual(
      ["users", "users.u_1", "users.u_1.x", "users.u_1.x.y"].map((p) => toHex(new TextEncoder().encode(p))),
    );
  });
});
