/**
 * The memory store's queries as a store grows: what a put's count and a search within a
 * namespace read (SQLite's rows read, as the runtime counts them), and that the index's scope
 * finds exactly the items the namespace test would.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import * as store from "../../src/memory/store";
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

/** A store of `ITEMS` items over `USERS` users, each holding the word "common" and a word of its own. */
async function withFilledStore<T>(run: (storage: DurableObjectStorage) => T): Promise<T> {
  return runInDurableObject(memoryStoreStub(env, freshTenant("mem")), (_instance, state) => {
    migrate(state.storage, MEMORY_STORE_MIGRATIONS);
    state.storage.transactionSync(() => {
      for (let i = 0; i < ITEMS; i++) {
        const user = i % USERS;
        const namespace = i % 4 === 0 ? `users.u${user}.episodes` : `users.u${user}`;
        store.writeItem(state.storage.sql, { namespace, key: `k${i}`, value: { text: `common note ${i % 7 === 0 ? "rare" : "plain"} number${i}` }, createdBy: "t", now: NOW + i, ttlMs: null, refreshTtl: false }, null);
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
      expect(store.countItems(read.sql)).toBe(ITEMS);
      expect(read.rowsRead()).toBe(1);
      const plan = storage.sql.exec<{ detail: string }>("EXPLAIN QUERY PLAN SELECT n FROM item_count").toArray().map((row) => row.detail);
      expect(plan.join(" | ")).not.toMatch(/\bitems\b/);
      store.deleteItem(storage.sql, "users.u1", "k1");
      store.writeItem(storage.sql, { namespace: "users.u1", key: "k1", value: { v: 1 }, createdBy: "t", now: NOW, ttlMs: null, refreshTtl: false }, null);
      store.writeItem(storage.sql, { namespace: "users.u1", key: "extra", value: { v: 1 }, createdBy: "t", now: NOW, ttlMs: 1, refreshTtl: false }, null);
      expect(store.countItems(storage.sql)).toBe(ITEMS + 1);
      // The sweep deletes rows as any delete does.
      expect(store.sweepExpired(storage.sql, NOW + 10)).toBe(1);
      expect(store.countItems(storage.sql)).toBe(storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM items").one().n);
    });
  });

  it("searches within a user's namespace reading that user's matches, not every item that holds the word", async () => {
    await withFilledStore((storage) => {
      const read = counting(storage.sql);
      const found = store.search(read.sql, searchInput([["users", "u7"]], "common"));
      expect(found).toHaveLength(ITEMS / USERS);
      // Every item holds "common": the search before scopes read each of them and its row (4,000+).
      expect(read.rowsRead()).toBeLessThan((ITEMS / USERS) * 4);
    });
  });

  it("finds within prefixes exactly the items the whole tenant's search finds there, with the same scores", async () => {
    await withFilledStore((storage) => {
      const everywhere = store.search(storage.sql, searchInput([[]], "rare note", ITEMS));
      const cases: string[][][] = [[["users", "u7"]], [["users", "u8", "episodes"]], [["users", "u3"], ["users", "u14"]], [["users"]]];
      for (const prefixes of cases) {
        const within = (namespace: string[]) => prefixes.some((prefix) => prefix.every((segment, i) => namespace[i] === segment));
        const scoped = store.search(storage.sql, searchInput(prefixes, "rare note", ITEMS));
        // Equal scores come in no set order: compared by score, then key.
        expect(byScore(scoped), JSON.stringify(prefixes)).toEqual(byScore(everywhere.filter((item) => within(item.namespace))));
        expect(scoped.length, JSON.stringify(prefixes)).toBeGreaterThan(0);
        expect(scoped.map((item) => item.score)).toEqual(scoped.map((item) => item.score).sort((a, b) => b! - a!));
      }
      // "u7" is not a prefix of "u70": segments are compared whole.
      expect(store.search(storage.sql, searchInput([["users", "u7"]], "rare note", ITEMS)).some((item) => item.namespace[1] === "u70")).toBe(false);
    });
  });

  it("looks a query's words up in the text only, never among the scope's tokens", async () => {
    await withFilledStore((storage) => {
      const scope = store.scopeText("users.u7").split(" ");
      for (const token of new Set(scope)) expect(store.search(storage.sql, searchInput([[]], token))).toEqual([]);
    });
  });

  it("gives every item four scope tokens: its prefixes, the whole namespace repeated", () => {
    expect(store.scopeText("a")).toBe("61 61 61 61");
    expect(store.scopeText("a.b")).toBe("61 612e62 612e62 612e62");
    expect(store.scopeText("users.u_1.x.y").split(" ")).toEqual(["users", "users.u_1", "users.u_1.x", "users.u_1.x.y"].map((p) => toHex(new TextEncoder().encode(p))));
  });
});
