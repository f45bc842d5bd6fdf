/**
 * Session-object migration 14 on storage version 13 wrote: the tables a session may never use
 * are dropped when empty and kept with their rows when not (without AUTOINCREMENT; the outbox's
 * row then moves into a key with migration 16, outbox-key.test.ts), and the session goes on,
 * making a table again on its first write.
 * A table made on first write has the shape the migration leaves a kept one in.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub } from "../../src/objects";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { SESSION_BASELINE, SESSION_ON_DEMAND_TABLES, type SessionOnDemandTable } from "../../src/sessions/object/store/schema";
import { SessionStore } from "../../src/sessions/object/store/store";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo, putSessionStateV12, userTables } from "../support/legacy-storage";
import { createAndStart, newTestSession, unwrap, waitForStatus, type TestSession } from "../support/agent-session";

const BEFORE = 13;
const ON_DEMAND = Object.keys(SESSION_ON_DEMAND_TABLES) as SessionOnDemandTable[];
const json = (value: unknown) => JSON.stringify(value);

/** A finished session at version 13 with one summary, one queued message and one owed notification. */
function writeV13(storage: DurableObjectStorage, t: TestSession): void {
  migrateSessionTo(storage, BEFORE);
  const at = new Date().toISOString();
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('user', ?, ?, 5, 'input')",
    json([{ type: "text", text: "hello" }]),
    at,
  );
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('assistant', ?, ?, 5, 'answer')",
    json([{ type: "text", text: "hi" }]),
    at,
  );
  storage.sql.exec("INSERT INTO summaries (first_seq, last_seq, content, tokens, created_at) VALUES (1, 1, 'they said hello', 4, ?)", at);
  storage.sql.exec(
    "INSERT INTO pending_messages (content, created_at, options) VALUES (?, ?, ?)",
    json([{ type: "text", text: "and again" }]),
    at,
    json({}),
  );
  storage.sql.exec(
    "INSERT INTO outbox (id, type, created_at, session) VALUES ('evt_owed', 'session.status_changed', ?, ?)",
    at,
    json({ id: t.sessionId, status: "done" }),
  );
  putSessionStateV12(storage, t, at, { tools: [], status: "done", steps: 1, stopReason: "end_turn", revision: 3 });
}

/** Each on-demand table's columns, keys and indexes, as schema-baseline.test.ts compares them. */
function shapes(sql: SqlStorage, names: readonly string[]) {
  return names.map((name) => ({
    name,
    sql: /AUTOINCREMENT/i.test(String(sql.exec("SELECT sql FROM sqlite_master WHERE name = ?", name).one().sql)),
    columns: sql.exec('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY name', name).toArray(),
    indexes: sql
      .exec(
        'SELECT il."unique", il.origin, (SELECT group_concat(ii.name) FROM pragma_index_info(il.name) ii) AS columns FROM pragma_index_list(?) il ORDER BY columns',
        name,
      )
      .toArray(),
  }));
}

describe(`session storage at version ${BEFORE}`, () => {
  it("drops the empty tables it may never use, keeps the others' rows, and goes on", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, (_i, state) => writeV13(state.storage, t));
    await abortAllDurableObjects();

    expect(unwrap(await t.stub.get())).toMatchObject({ status: "done" });
    await runInDurableObject(t.stub, (_i, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      const tables = userTables(state.storage);
      // The outbox keeps its row through version 14; version 16 moves it into a key (outbox-key.test.ts).
      for (const gone of ["run_tools", "images", "image_chunks", "subagents", "trace_spans", "audit_outbox", "outbox"])
        expect(tables).not.toContain(gone);
      for (const kept of ["summaries", "pending_messages"]) expect(tables).toContain(kept);
      const sql = state.storage.sql;
      expect(sql.exec("SELECT id, first_seq, last_seq, content FROM summaries").toArray()).toEqual([
        { id: 1, first_seq: 1, last_seq: 1, content: "they said hello" },
      ]);
      expect(sql.exec("SELECT count(*) AS n FROM pending_messages").one().n).toBe(1);
      expect(sql.exec("SELECT name FROM sqlite_master WHERE sql LIKE '%AUTOINCREMENT%'").toArray()).toEqual([]);
    });

    // The queued message starts the next run; the owed notification was handed over (or is still owed), never lost.
    await t.model.script({ reply: { content: [{ type: "text", text: "again, hi" }] } });
    unwrap(await t.stub.start("one more"));
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done" });
    await runInDurableObject(t.stub, (_i, state) => {
      const sql = state.storage.sql;
      const contents = sql
        .exec<{ content: string }>("SELECT content FROM messages ORDER BY seq")
        .toArray()
        .map((row) => row.content);
      expect(contents.some((content) => content.includes("and again"))).toBe(true);
      expect(sql.exec("SELECT count(*) AS n FROM pending_messages").one().n).toBe(0);
    });
  });
});

describe("tables made on first write", () => {
  it("are not made with a new session, and have the shape migration 14 keeps a used one in", async () => {
    const migrated = await runInDurableObject(sessionStub(env, "t-on-demand", "ses_migrated"), (_i, state) => {
      migrate(state.storage, SESSION_MIGRATIONS.slice(0, BEFORE));
      const sql = state.storage.sql;
      const at = new Date().toISOString();
      sql.exec("INSERT INTO summaries (first_seq, last_seq, content, tokens, created_at) VALUES (1, 1, 's', 1, ?)", at);
      sql.exec("INSERT INTO pending_messages (content, created_at) VALUES ('[]', ?)", at);
      sql.exec(
        "INSERT INTO run_tools (name, position, server, remote_name, description, input_schema, at_most_once) VALUES ('a', 0, 's', 'a', '', '{}', 0)",
      );
      sql.exec("INSERT INTO outbox (id, type, created_at, session) VALUES ('e', 't', ?, '{}')", at);
      sql.exec("INSERT INTO images (id, media_type, size_bytes, width, height, created_at) VALUES ('i', 'image/png', 1, 1, 1, ?)", at);
      sql.exec("INSERT INTO image_chunks (image_id, idx, data) VALUES ('i', 0, x'00')");
      sql.exec("INSERT INTO subagents (tool_call_id, session_id, run_start_seq, created_at) VALUES ('c', 's', 1, ?)", at);
      sql.exec("INSERT INTO trace_spans (span, created_at) VALUES ('{}', 1)");
      sql.exec("INSERT INTO audit_outbox (id, created_at, entry) VALUES ('a', 1, '{}')");
      migrate(state.storage, SESSION_MIGRATIONS);
      return shapes(sql, [...ON_DEMAND, "image_chunks"]);
    });
    const made = await runInDurableObject(sessionStub(env, "t-on-demand", "ses_made"), (_i, state) => {
      migrate(state.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
      const store = new SessionStore(state.storage);
      for (const name of ON_DEMAND) expect(store.tables.has(name)).toBe(false);
      expect(userTables(state.storage).sort()).toEqual(["event_batches", "messages", "steps", "tool_calls"]);
      for (const name of ON_DEMAND) store.tables.ensure(name);
      for (const name of ON_DEMAND) expect(store.tables.has(name)).toBe(true);
      return shapes(state.storage.sql, [...ON_DEMAND, "image_chunks"]);
    });
    expect(made).toEqual(migrated);
  });

  it("are forgotten when the transaction that made one rolls back", async () => {
    await runInDurableObject(sessionStub(env, "t-on-demand", "ses_rollback"), (_i, state) => {
      migrate(state.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
      const store = new SessionStore(state.storage);
      expect(() =>
        store.transaction(() => {
          store.tables.ensure("summaries");
          throw new Error("rolled back");
        }),
      ).toThrow("rolled back");
      expect(store.tables.has("summaries")).toBe(false);
      expect(store.summaries()).toEqual([]);
    });
  });

  it("are never made in storage that holds no session: a write after an erase leaves nothing behind", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [{ type: "text", text: "hi" }] } });
    await createAndStart(t, "hello");
    await waitForStatus(t, ["done"]);
    unwrap(await t.stub.erase());
    await runInDurableObject(t.stub, (_i, state) => {
      const store = new SessionStore(state.storage);
      for (const name of Object.keys(SESSION_ON_DEMAND_TABLES) as SessionOnDemandTable[]) {
        expect(() => store.transaction(() => store.ensureTable(name))).toThrow(/holds no session/);
      }
      expect(userTables(state.storage)).toEqual([]);
      expect(state.storage.sql.exec("SELECT name FROM sqlite_master").toArray()).toEqual([]);
    });
  });
});
