/**
 * A memory store written by version 6 (the current version copied into `item_versions`, the index
 * holding its text, no byte count) woken by this code: migrations 7 and 8 keep every version and
 * its writer, count each item's bytes, drop the index's copy of the text, and the store searches,
 * deletes and refuses past `max_memory_bytes` as new storage does.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import { scopeText } from "../../src/memory/item-row";
import type { MemoryItem, MemoryResult, MemoryVersion, ScoredItem } from "../../src/memory/types";
import { memoryStoreStub } from "../../src/objects";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { freshTenant } from "../support/tokens";

const AT = Date.parse("2026-11-01T00:00:00Z");

/** Writes an item as version 6's `put` did: the row, every kept version (the current one too), the index's text, the vector. */
function writeV6Item(sql: SqlStorage, namespace: string, key: string, values: Record<string, unknown>[], vector: boolean): void {
  const kept = values.map((value, i) => ({ version: i + 1, text: JSON.stringify(value), by: i === 0 ? "user-1" : "user-2", at: AT + i }));
  const last = kept[kept.length - 1]!;
  const { id } = sql
    .exec<{ id: number }>(
      `INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at, expires_at, ttl_ms, refresh_ttl)
       VALUES (?, ?, ?, ?, 'user-1', ?, ?, NULL, NULL, 0) RETURNING id`,
      namespace,
      key,
      last.text,
      last.version,
      AT,
      last.at,
    )
    .one();
  const body = `${key} ${Object.entries(values[values.length - 1]!)
    .flat()
    .join(" ")}`;
  sql.exec("INSERT INTO items_fts (rowid, body, scope) VALUES (?, ?, ?)", id, body, scopeText(namespace));
  for (const row of kept.slice(-10))
    sql.exec(
      "INSERT INTO item_versions (namespace, key, version, value, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      namespace,
      key,
      row.version,
      row.text,
      row.by,
      row.at,
    );
  if (vector)
    sql.exec(
      "INSERT INTO item_vectors (item_id, model, vector) VALUES (?, 'mock-embeddings', ?)",
      id,
      new Float32Array(64).fill(0.125).buffer,
    );
}

describe("MemoryStore storage written by version 6", () => {
  it("keeps every version and its writer, counts the items' bytes, and searches, deletes and refuses as new storage does", async () => {
    const tenantId = freshTenant("mem");
    const edits = Array.from({ length: 12 }, (_, i) => ({ note: `edit ${i + 1} of the French notes`, filler: "x".repeat(2_000) }));
    await runInDurableObject(memoryStoreStub(env, tenantId), (_instance, state) => {
      migrate(state.storage, MEMORY_STORE_MIGRATIONS.slice(0, 6));
      writeV6Item(state.storage.sql, "users.u_1", "notes", edits, true);
      writeV6Item(state.storage.sql, "users.u_2", "language", [{ note: "answers in French" }], false);
      writeV6Item(state.storage.sql, "solo", "top", [{ note: "German at the top" }], false);
      state.storage.kv.put("tenant_id", tenantId);
      state.storage.kv.put("created_at", AT);
      state.storage.kv.put("registered", true);
    });
    await abortAllDurableObjects();
    const stub = memoryStoreStub(env, tenantId);

    const versions = (await stub.versions(tenantId, ["users", "u_1"], "notes", Date.now())) as MemoryResult<MemoryVersion[]>;
    if (!versions.ok) throw new Error("no versions");
    expect(versions.value.map((v) => v.version)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(versions.value[0]).toMatchObject({ value: edits[11], created_by: "user-2", created_at: new Date(AT + 11).toISOString() });
    expect(versions.value[9]).toMatchObject({ value: edits[2], created_by: "user-2" });

    const stored = await runInDurableObject(stub, (_instance, state) => {
      const sql = state.storage.sql;
      expect(schemaVersion(state.storage)).toBe(latestVersion(MEMORY_STORE_MIGRATIONS));
      return {
        // The current version is the row's alone now.
        copies: sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM item_versions WHERE key = 'notes'").one().n,
        total: sql.exec<{ n: number }>("SELECT n FROM item_bytes").one().n,
        bytes: Object.fromEntries(
          sql
            .exec<{ key: string; bytes: number }>("SELECT key, bytes FROM items")
            .toArray()
            .map((r) => [r.key, r.bytes]),
        ),
        // The index keeps no text.
        bodies: sql
          .exec<{ body: string | null }>("SELECT body FROM items_fts")
          .toArray()
          .map((r) => r.body),
      };
    });
    expect(stored.copies).toBe(9);
    expect(stored.bodies).toEqual([null, null, null]);
    // Ten values of about 2,050 bytes, the index's text at 5/4 and the vector's 256 bytes.
    expect(stored.bytes.notes).toBeGreaterThan(10 * 2_050 + 2_500 + 256);
    expect(stored.bytes.notes).toBeLessThan(10 * 2_400 + 3_500 + 512);
    expect(stored.total).toBe(stored.bytes.notes! + stored.bytes.language! + stored.bytes.top!);

    const search = async (query: string) =>
      (
        (await stub.search(tenantId, { prefixes: [["users"]], query, filter: {}, limit: 10, offset: 0, now: Date.now() })) as unknown as {
          value: ScoredItem[];
        }
      ).value.map((item) => item.key);
    expect((await search("French")).sort()).toEqual(["language", "notes"]);
    // Two words, one held by most items: the words view made again on the new index still answers.
    expect(await search("answers French")).toEqual(["language"]);

    expect((await stub.remove(tenantId, ["users", "u_1"], "notes", Date.now())).ok).toBe(true);
    const left = await runInDurableObject(
      stub,
      (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT n FROM item_bytes").one().n,
    );
    expect(left).toBe(stored.bytes.language! + stored.bytes.top!);

    const put = async (maxBytes: number) =>
      (await stub.put(tenantId, {
        namespace: ["solo"],
        key: "next",
        value: { note: "y".repeat(1_000) },
        ttlSeconds: null,
        refreshTtl: false,
        createdBy: "user-3",
        maxItems: 100,
        maxBytes,
        now: Date.now(),
      })) as MemoryResult<MemoryItem>;
    expect(await put(left + 500)).toMatchObject({ ok: false, reason: "limit_reached", of: "bytes", used: left });
    expect(await put(left + 5_000)).toMatchObject({ ok: true, value: { version: 1 } });
  });
});
