/**
 * The session object's storage migrations, oldest first (the runner is src/storage/migrations.ts; the
 * layout they build is described in storage.md). Append a step for every change; never edit one.
 * Steps 13 to 16 rebuild tables, drop empty ones and move the outbox into a key: code from before
 * them cannot read what they leave, so a deploy that reached them is rolled forward, not back
 * (docs/deploying.md).
 */
import { execAll, type Migration } from "../../../storage/migrations";
import { SESSION_MIGRATIONS_1_TO_12 } from "./migrations-1-to-12";

export const SESSION_MIGRATIONS: readonly Migration[] = [
  ...SESSION_MIGRATIONS_1_TO_12,
  {
    version: 13,
    description:
      "one row per fact: events stored as one row per transaction (event_batches); messages and steps without " +
      "AUTOINCREMENT; tool_calls keyed by (message_seq, position) without its `reported` flag and index (a call is " +
      "open until a tool_result message follows its message)",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE event_batches (
          last_id INTEGER PRIMARY KEY,
          first_id INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          events TEXT NOT NULL
        )`,
        `INSERT INTO event_batches (last_id, first_id, created_at, events)
         SELECT id, id, created_at, json_array(json_array(type, json(data), created_at)) FROM events`,
        `DROP TABLE events`,
        `CREATE TABLE messages_v13 (
          seq INTEGER PRIMARY KEY,
          role TEXT NOT NULL,
          content TEXT NOT NULL,
          created_at TEXT NOT NULL,
          tokens INTEGER NOT NULL DEFAULT 0,
          kind TEXT NOT NULL DEFAULT 'input',
          omitted INTEGER NOT NULL DEFAULT 0
        )`,
        `INSERT INTO messages_v13 (seq, role, content, created_at, tokens, kind, omitted)
         SELECT seq, role, content, created_at, tokens, kind, omitted FROM messages`,
        `DROP TABLE messages`,
        `ALTER TABLE messages_v13 RENAME TO messages`,
        `CREATE TABLE steps_v13 (
          seq INTEGER PRIMARY KEY,
          kind TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          ended_at INTEGER NOT NULL,
          queued_ms INTEGER NOT NULL,
          input_tokens INTEGER,
          output_tokens INTEGER,
          outcome TEXT NOT NULL
        )`,
        `INSERT INTO steps_v13 (seq, kind, started_at, ended_at, queued_ms, input_tokens, output_tokens, outcome)
         SELECT seq, kind, started_at, ended_at, queued_ms, input_tokens, output_tokens, outcome FROM steps`,
        `DROP TABLE steps`,
        `ALTER TABLE steps_v13 RENAME TO steps`,
        `CREATE TABLE tool_calls_v13 (
          message_seq INTEGER NOT NULL,
          position INTEGER NOT NULL,
          id TEXT NOT NULL UNIQUE,
          step INTEGER NOT NULL,
          name TEXT NOT NULL,
          input TEXT NOT NULL,
          status TEXT NOT NULL,
          output TEXT,
          is_error INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL,
          started_at TEXT,
          finished_at TEXT,
          restarts INTEGER NOT NULL DEFAULT 0,
          decided_by TEXT,
          decided_at TEXT,
          decision TEXT,
          PRIMARY KEY (message_seq, position)
        ) WITHOUT ROWID`,
        `INSERT INTO tool_calls_v13 (message_seq, position, id, step, name, input, status, output, is_error, created_at,
           started_at, finished_at, restarts, decided_by, decided_at, decision)
         SELECT message_seq, position, id, step, name, input, status, output, is_error, created_at,
           started_at, finished_at, restarts, decided_by, decided_at, decision FROM tool_calls`,
        `DROP TABLE tool_calls`,
        `ALTER TABLE tool_calls_v13 RENAME TO tool_calls`,
      ]),
  },
  {
    version: 14,
    description:
      "tables a session may never use are made on first write: each left empty is dropped (a table is a page even " +
      "empty); summaries, pending_messages, outbox and trace_spans keep their rows without AUTOINCREMENT, and outbox " +
      "without its unique index on id",
    up: (storage) => {
      const sql = storage.sql;
      const exists = (name: string) => sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", name).toArray().length > 0;
      const empty = (name: string) => sql.exec(`SELECT 1 FROM ${name} LIMIT 1`).toArray().length === 0;
      /** The new shape of a rebuilt table, and the columns its rows keep. */
      const rebuilt: Record<string, { create: string; columns: string }> = {
        summaries: {
          create: `CREATE TABLE summaries_v14 (
            id INTEGER PRIMARY KEY,
            first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            content TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            created_at TEXT NOT NULL
          )`,
          columns: "id, first_seq, last_seq, content, tokens, created_at",
        },
        pending_messages: {
          create: `CREATE TABLE pending_messages_v14 (
            id INTEGER PRIMARY KEY,
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            options TEXT
          )`,
          columns: "id, content, created_at, options",
        },
        outbox: {
          create: `CREATE TABLE outbox_v14 (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL,
            type TEXT NOT NULL,
            created_at TEXT NOT NULL,
            session TEXT NOT NULL
          )`,
          columns: "seq, id, type, created_at, session",
        },
        trace_spans: {
          create: `CREATE TABLE trace_spans_v14 (
            seq INTEGER PRIMARY KEY,
            span TEXT NOT NULL,
            created_at INTEGER NOT NULL
          )`,
          columns: "seq, span, created_at",
        },
      };
      for (const name of ["summaries", "pending_messages", "run_tools", "outbox", "subagents", "trace_spans", "audit_outbox"]) {
        if (!exists(name)) continue;
        if (empty(name)) {
          sql.exec(`DROP TABLE ${name}`);
          continue;
        }
        const shape = rebuilt[name];
        if (!shape) continue;
        execAll(sql, [
          shape.create,
          `INSERT INTO ${name}_v14 (${shape.columns}) SELECT ${shape.columns} FROM ${name}`,
          `DROP TABLE ${name}`,
          `ALTER TABLE ${name}_v14 RENAME TO ${name}`,
        ]);
      }
      // An image is its row and its chunks: the two go together.
      if (exists("images") && exists("image_chunks") && empty("images") && empty("image_chunks")) {
        execAll(sql, ["DROP TABLE images", "DROP TABLE image_chunks"]);
      }
    },
  },
  {
    version: 15,
    description:
      "tool_calls keyed by id alone, without a second index: a call is inserted and updated as one row; its order " +
      "(message_seq, position) stays in its columns, and the open calls are found from the blocks of their message",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE tool_calls_v15 (
          message_seq INTEGER NOT NULL,
          position INTEGER NOT NULL,
          id TEXT NOT NULL,
          step INTEGER NOT NULL,
          name TEXT NOT NULL,
          input TEXT NOT NULL,
          status TEXT NOT NULL,
          output TEXT,
          is_error INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL,
          started_at TEXT,
          finished_at TEXT,
          restarts INTEGER NOT NULL DEFAULT 0,
          decided_by TEXT,
          decided_at TEXT,
          decision TEXT,
          PRIMARY KEY (id)
        ) WITHOUT ROWID`,
        `INSERT INTO tool_calls_v15 (message_seq, position, id, step, name, input, status, output, is_error, created_at,
           started_at, finished_at, restarts, decided_by, decided_at, decision)
         SELECT message_seq, position, id, step, name, input, status, output, is_error, created_at,
           started_at, finished_at, restarts, decided_by, decided_at, decision FROM tool_calls`,
        `DROP TABLE tool_calls`,
        `ALTER TABLE tool_calls_v15 RENAME TO tool_calls`,
      ]),
  },
  {
    version: 16,
    description:
      "the notification outbox kept as one key-value entry (`outbox`, its entries oldest first) instead of a table: it " +
      "holds a notification or two for a moment per run, and a table keeps a page for the session's life, empty or not",
    up: (storage) => {
      const sql = storage.sql;
      if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox'").toArray().length === 0) return;
      const owed = sql
        .exec("SELECT id, type, created_at, session FROM outbox ORDER BY seq")
        .toArray()
        .map((row) => ({
          id: String(row.id),
          type: String(row.type),
          created_at: String(row.created_at),
          session: JSON.parse(String(row.session)) as unknown,
        }));
      if (owed.length > 0) storage.kv.put("outbox", owed);
      sql.exec("DROP TABLE outbox");
    },
  },
  {
    version: 17,
    description:
      "run_tools.output_schema: the `outputSchema` an MCP server listed for a tool (JSON, null without one), so each call's " +
      "result is checked against the schema found when the run started, whichever connection the call goes over",
    up: (storage) => {
      const sql = storage.sql;
      // An on-demand table: absent until a run lists MCP tools, and then made with the column.
      if (sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_tools'").toArray().length === 0) return;
      sql.exec("ALTER TABLE run_tools ADD COLUMN output_schema TEXT");
    },
  },
  {
    version: 18,
    description:
      "tool_calls.policy: the tool policy's decision on the call when a policy judged it (JSON `{ decision, policy_ids }`, " +
      "null otherwise), kept so the call shows why it was held or denied",
    up: (storage) => {
      storage.sql.exec("ALTER TABLE tool_calls ADD COLUMN policy TEXT");
    },
  },
  {
    version: 19,
    description:
      "`a2a_tasks` (one map of every waiting `a2a` call's remote task) split into one `a2a_task:<tool_call_id>` key per " +
      "call, so parallel calls' answers never share one value and its size limit",
    up: (storage) => {
      const all = storage.kv.get<Record<string, unknown>>("a2a_tasks");
      if (all === undefined) return;
      for (const [id, task] of Object.entries(all)) storage.kv.put(`a2a_task:${id}`, task);
      storage.kv.delete("a2a_tasks");
    },
  },
];
