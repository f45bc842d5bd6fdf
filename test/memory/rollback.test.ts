/**
 * Migration 7 is not rollback-safe, but a rollback must not break the item it touched: code from
 * before it writes the current version into `item_versions` too (and no bytes) and never copies
 * the row's, which is lost; rolled forward,
 * the next write and the versions list take that copy in their stride.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ItemRow } from "../../src/memory/item-row";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import * as store from "../../src/memory/store";
import { memoryStoreStub } from "../../src/objects";
import { migrate } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

const NOW = 1_000_000;

function row(sql: SqlStorage): ItemRow {
  return sql.exec<ItemRow>(`SELECT * FROM items WHERE namespace = 'users.u1' AND key = 'notes'`).one();
}

/** A write as the code before migration 7 made it: the row updated (no bytes, no writer), the current version copied too. */
function writeAsBefore(sql: SqlStorage, previous: ItemRow, value: Record<string, unknown>, now: number): void {
  const text = JSON.stringify(value);
  sql.exec(`UPDATE items SET value = ?, version = ?, updated_at = ? WHERE id = ?`, text, previous.version + 1, now, previous.id);
  sql.exec(
    `INSERT INTO item_versions (namespace, key, version, value, created_by, created_at) VALUES (?, ?, ?, ?, 'old-code', ?)`,
    previous.namespace,
    previous.key,
    previous.version + 1,
    text,
    now,
  );
}

describe("memory store after a rollback past migration 7", () => {
  it("writes the next version and lists each version once", async () => {
    await runInDurableObject(memoryStoreStub(env, freshTenant("mem")), (_instance, state) => {
      const sql = state.storage.sql;
      migrate(state.storage, MEMORY_STORE_MIGRATIONS);
      const write = (note: string, now: number, previous: ItemRow | null) =>
        store.writeItem(
          sql,
          { namespace: "users.u1", key: "notes", value: { note }, createdBy: "new-code", now, ttlMs: null, refreshTtl: false },
          previous,
        );
      write("one", NOW, null);
      write("two", NOW + 1, row(sql));
      writeAsBefore(sql, row(sql), { note: "three" }, NOW + 2);
      // Version 2 lived in the row alone, and the old code never copies the row: a rollback loses it.
      expect(store.versionsOf(sql, row(sql)).map((v) => v.version)).toEqual([3, 1]);

      write("four", NOW + 3, row(sql));
      const versions = store.versionsOf(sql, row(sql));
      expect(versions.map((v) => v.version)).toEqual([4, 3, 1]);
      expect(versions.map((v) => v.value.note)).toEqual(["four", "three", "one"]);
      // The copy the old code made is counted like any kept version.
      expect(sql.exec<{ bytes: number }>(`SELECT bytes FROM item_versions WHERE version = 3`).one().bytes).toBeGreaterThan(0);
    });
  });
});
