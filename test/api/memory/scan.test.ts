/**
 * Filtered and paged memory searches read a bounded number of items (`MAX_SEARCH_SCAN`): a page
 * found within them is exact, and one past them is a 400 that says what to narrow, never a scan
 * of the whole store (the runtime's rows read, counted per statement).
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../../src/memory/migrations";
import * as store from "../../../src/memory/store";
import { MAX_SEARCH_SCAN, ScanExceeded, search } from "../../../src/memory/search";
import type { SearchInput } from "../../../src/memory/types";
import { memoryStoreStub } from "../../../src/objects";
import { migrate } from "../../../src/storage/migrations";
import { callJson, readProblem } from "../../support/api";
import { freshTenant } from "../../support/tokens";
import { caller } from "../sessions/helpers";

const ITEMS = 3 * MAX_SEARCH_SCAN;
const USERS = 100;
const NOW = 1_000_000;

function counting(sql: SqlStorage) {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  const exec = (query: string, ...bindings: unknown[]) => {
    const cursor = sql.exec(query, ...bindings);
    cursors.push(cursor);
    return cursor;
  };
  return { sql: { exec } as unknown as SqlStorage, rowsRead: () => cursors.reduce((sum, cursor) => sum + cursor.rowsRead, 0) };
}

/** Item `i` is written at `NOW + i`; the five oldest are `kind: "ancient"`, the others alternate "even" and "odd". */
function fill(sql: SqlStorage): void {
  for (let i = 0; i < ITEMS; i++) {
    const kind = i < 5 ? "ancient" : i % 2 === 0 ? "even" : "odd";
    const item = { text: `common words of item ${i}`, kind, filler: "f".repeat(500) };
    store.writeItem(
      sql,
      { namespace: `users.u${i % USERS}`, key: `k${i}`, value: item, createdBy: "t", now: NOW + i, ttlMs: null, refreshTtl: false },
      null,
    );
  }
}

async function withStore<T>(run: (sql: SqlStorage) => T): Promise<T> {
  return runInDurableObject(memoryStoreStub(env, freshTenant("scan")), (_instance, state) => {
    migrate(state.storage, MEMORY_STORE_MIGRATIONS);
    state.storage.transactionSync(() => fill(state.storage.sql));
    return run(state.storage.sql);
  });
}

function input(prefixes: string[][], query: string | null, filter: SearchInput["filter"], limit = 10, offset = 0): SearchInput {
  return { prefixes, query, filter, limit, offset, now: NOW + ITEMS };
}

const keyNumbers = (items: { key: string }[]) => items.map((item) => Number(item.key.slice(1)));

describe("memory search scan budget", () => {
  it("answers a filter without a query from the newest items, reading no more than the scan", async () => {
    await withStore((sql) => {
      const read = counting(sql);
      const found = search(read.sql, input([[]], null, { kind: "even" }));
      expect(keyNumbers(found)).toEqual(Array.from({ length: 10 }, (_, i) => ITEMS - 2 - 2 * i));
      // Before the bound: every item's row read and its value parsed, then sorted (3,000+).
      expect(read.rowsRead()).toBeLessThan(100);

      const rare = counting(sql);
      expect(() => search(rare.sql, input([[]], null, { kind: "ancient" }))).toThrow(ScanExceeded);
      expect(rare.rowsRead()).toBeLessThanOrEqual(MAX_SEARCH_SCAN + 10);

      // Within a user's namespace (30 items) the whole namespace is read, newest first, exactly.
      const user = counting(sql);
      const mine = search(user.sql, input([["users", "u7"]], null, { kind: "odd" }, 100));
      expect(keyNumbers(mine)).toEqual(Array.from({ length: ITEMS / USERS }, (_, j) => ITEMS - 93 - 100 * j));
      expect(user.rowsRead()).toBeLessThan(200);
    });
  });

  it("applies a query's filter to its best matches only, and refuses a page they do not fill", async () => {
    await withStore((sql) => {
      const plain = counting(sql);
      const best = search(plain.sql, input([[]], "common", {}, 100));
      const filtered = counting(sql);
      const even = search(filtered.sql, input([[]], "common", { kind: "even" }, 20));
      expect(even.every((item) => item.value.kind === "even")).toBe(true);
      expect(even).toHaveLength(20);
      // Ranking every match in the index is the same work either way; the filter adds at most the scan.
      expect(filtered.rowsRead() - plain.rowsRead()).toBeLessThanOrEqual(MAX_SEARCH_SCAN + 10);
      expect(Math.max(...even.map((item) => item.score!))).toBe(
        Math.max(...best.filter((item) => item.value.kind === "even").map((item) => item.score!)),
      );

      const rare = counting(sql);
      expect(() => search(rare.sql, input([[]], "common", { kind: "ancient" }))).toThrow(ScanExceeded);
      // The scan's rows, and the index asked whether more matches lie past them (rowids only).
      expect(rare.rowsRead() - plain.rowsRead()).toBeLessThanOrEqual(2 * MAX_SEARCH_SCAN + 10);
    });
  });

  it("pages within the scan and refuses an offset past it", async () => {
    await withStore((sql) => {
      expect(search(sql, input([[]], "common", {}, 10, MAX_SEARCH_SCAN - 10))).toHaveLength(10);
      expect(() => search(sql, input([[]], "common", {}, 10, MAX_SEARCH_SCAN - 5))).toThrow(ScanExceeded);
      expect(() => search(sql, input([[]], null, {}, 10, MAX_SEARCH_SCAN))).toThrow(ScanExceeded);
      // Within a user's items every page is reachable.
      expect(search(sql, input([["users", "u1"]], "common", {}, 10, 25))).toHaveLength(5);
    });
  });

  it("answers the API's search past the scan with a 400 that says what to narrow", async () => {
    const who = await caller(undefined, ["memory:read", "memory:write"]);
    expect((await callJson("/v1/memory/items", "PUT", { namespace: ["a"], key: "first", value: { kind: "x" } }, who.headers)).status).toBe(
      200,
    );
    await runInDurableObject(memoryStoreStub(env, who.tenantId), (_instance, state) =>
      state.storage.transactionSync(() => fill(state.storage.sql)),
    );
    const res = await callJson("/v1/memory/search", "POST", { filter: { kind: "none such" } }, who.headers);
    expect(res.status).toBe(400);
    const problem = await readProblem(res);
    expect(problem.detail).toContain(`at most ${MAX_SEARCH_SCAN} items`);
    expect(problem.detail).toContain("namespace_prefix");
    const page = await callJson("/v1/memory/search", "POST", { filter: { kind: "even" }, limit: 3 }, who.headers);
    expect(page.status).toBe(200);
  });
});
