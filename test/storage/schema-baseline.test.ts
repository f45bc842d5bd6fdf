/**
 * A session created now starts from the written-out baseline (src/sessions/object/store/schema.ts)
 * instead of every migration since the first. The two must give the same storage: the same tables
 * with the same columns, keys, WITHOUT ROWID and AUTOINCREMENT, and the same indexes; and the
 * baseline must be at the newest version, so a step appended without it fails here.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { SESSION_BASELINE } from "../../src/sessions/object/store/schema";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";

/** What the storage's tables are, names of automatic indexes aside (a rebuilt table's keep their first name). */
function layout(sql: SqlStorage) {
  const tables = sql
    .exec(
      "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name",
    )
    .toArray();
  return tables.map((table) => {
    const name = String(table.name);
    const list = sql.exec("SELECT wr FROM pragma_table_list WHERE name = ?", name).one();
    return {
      name,
      withoutRowid: Number(list.wr),
      autoincrement: /AUTOINCREMENT/i.test(String(table.sql)),
      columns: sql.exec('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY name', name).toArray(),
      indexes: sql
        .exec(
          'SELECT il."unique", il.origin, il.partial, (SELECT group_concat(ii.name) FROM pragma_index_info(il.name) ii) AS columns FROM pragma_index_list(?) il ORDER BY columns, origin',
          name,
        )
        .toArray(),
    };
  });
}

describe("the session object's baseline", () => {
  it("is at the newest version and gives the tables every migration gives", async () => {
    expect(SESSION_BASELINE.version).toBe(latestVersion(SESSION_MIGRATIONS));
    const migrated = await runInDurableObject(sessionStub(env, "t-baseline", "ses_migrated"), (_i, state) => {
      migrate(state.storage, SESSION_MIGRATIONS);
      return layout(state.storage.sql);
    });
    const created = await runInDurableObject(sessionStub(env, "t-baseline", "ses_created"), (_i, state) => {
      migrate(state.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
      expect(schemaVersion(state.storage)).toBe(SESSION_BASELINE.version);
      return layout(state.storage.sql);
    });
    expect(created.map((table) => table.name)).toContain("event_batches");
    expect(created).toEqual(migrated);
  });

  it("is applied beside a table of the runtime's own, as wrangler dev keeps in each object", async () => {
    await runInDurableObject(sessionStub(env, "t-baseline", "ses_runtime_table"), (_i, state) => {
      state.storage.sql.exec("CREATE TABLE __runtime_own (name TEXT)");
      migrate(state.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
      expect(state.storage.sql.exec("SELECT sql FROM sqlite_master WHERE name = 'messages'").one().sql).toMatch(/^CREATE TABLE messages/);
    });
  });

  it("is not applied to storage that already holds a table", async () => {
    await runInDurableObject(sessionStub(env, "t-baseline", "ses_legacy"), (_i, state) => {
      state.storage.sql.exec(
        "CREATE TABLE messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL)",
      );
      migrate(state.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // The chain ran from version 0: it rebuilt `messages` without AUTOINCREMENT.
      expect(state.storage.sql.exec("SELECT sql FROM sqlite_master WHERE name = 'messages'").one().sql).not.toMatch(/AUTOINCREMENT/);
    });
  });
});
