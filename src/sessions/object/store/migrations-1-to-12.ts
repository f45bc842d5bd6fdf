/**
 * The session object's storage migrations 1 to 12, frozen (the list is joined in migrations.ts;
 * the runner is src/storage/migrations.ts). Never edit one.
 */
import { execAll, type Migration } from "../../../storage/migrations";

/**
 * Version 3's token estimate and message kind, as that code computed them: a migration never
 * calls live code, which may change after it. Stored messages then held text, tool_use and
 * tool_result blocks only; the estimate is the UTF-8 bytes of the content's JSON over 3, plus 4
 * for the role markers.
 */
function tokensV3(content: readonly { type: string }[]): number {
  return Math.ceil(new TextEncoder().encode(JSON.stringify(content)).length / 3) + 4;
}

function kindV3(role: string, content: readonly { type: string }[]): string {
  if (role === "user") return content.some((block) => block.type === "tool_result") ? "tool_result" : "input";
  return content.some((block) => block.type === "tool_use") ? "tool_use" : "answer";
}
export const SESSION_MIGRATIONS_1_TO_12: readonly Migration[] = [
  {
    version: 1,
    description: "messages, tool calls and events",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS messages (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          role TEXT NOT NULL,
          content TEXT NOT NULL,
          created_at TEXT NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS tool_calls (
          id TEXT PRIMARY KEY,
          step INTEGER NOT NULL,
          message_seq INTEGER NOT NULL,
          position INTEGER NOT NULL,
          name TEXT NOT NULL,
          input TEXT NOT NULL,
          status TEXT NOT NULL,
          output TEXT,
          is_error INTEGER NOT NULL DEFAULT 0,
          reported INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL,
          started_at TEXT,
          finished_at TEXT
        )`,
        `CREATE INDEX IF NOT EXISTS tool_calls_open ON tool_calls (reported, message_seq, position)`,
        `CREATE TABLE IF NOT EXISTS events (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          type TEXT NOT NULL,
          data TEXT NOT NULL,
          created_at TEXT NOT NULL
        )`,
      ]),
  },
  {
    version: 2,
    description: "run state: coalesced reports (urgent_revision, last_report_at, report_retry_at); counters always present",
    up: (storage) => {
      const run = storage.kv.get<Record<string, unknown>>("run");
      if (!run) return;
      const revision = Number(run.revision ?? 0);
      const reported = Number(run.reported_revision ?? 0);
      storage.kv.put("run", {
        ...run,
        // Whatever the index has not heard yet is told at once, as the earlier version would have.
        urgent_revision: reported < revision ? revision : 0,
        last_report_at: 0,
        report_failures: Number(run.report_failures ?? 0),
        report_retry_at: 0,
        next_attempt_at: Number(run.next_attempt_at ?? 0),
        ready_at: 0,
        run_started_at: 0,
      });
    },
  },
  {
    version: 3,
    description:
      "messages.tokens and messages.kind, filled for stored messages; summaries; pending_messages; " +
      "run state: cache usage counts, run_start_seq, token_ratio",
    up: (storage) => {
      execAll(storage.sql, [
        `ALTER TABLE messages ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'input'`,
        `CREATE TABLE IF NOT EXISTS summaries (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          first_seq INTEGER NOT NULL,
          last_seq INTEGER NOT NULL,
          content TEXT NOT NULL,
          tokens INTEGER NOT NULL,
          created_at TEXT NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS pending_messages (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          content TEXT NOT NULL,
          created_at TEXT NOT NULL
        )`,
      ]);
      // Each stored message is read once here, so no fit ever has to parse it again.
      let lastInput = 0;
      for (const row of storage.sql.exec("SELECT seq, role, content FROM messages ORDER BY seq").toArray()) {
        const content = JSON.parse(String(row.content)) as { type: string }[];
        const kind = kindV3(String(row.role), content);
        if (kind === "input") lastInput = Number(row.seq);
        storage.sql.exec("UPDATE messages SET tokens = ?, kind = ? WHERE seq = ?", tokensV3(content), kind, row.seq);
      }
      const run = storage.kv.get<Record<string, unknown>>("run");
      if (!run) return;
      const usage = (run.usage ?? {}) as Record<string, unknown>;
      storage.kv.put("run", {
        ...run,
        usage: {
          ...usage,
          cache_read_tokens: Number(usage.cache_read_tokens ?? 0),
          cache_write_tokens: Number(usage.cache_write_tokens ?? 0),
        },
        // Each run started with one user input, so the newest input began the current run.
        run_start_seq: lastInput,
        token_ratio: 1,
      });
    },
  },
  {
    version: 4,
    description: "steps: the timing and outcome of each unit of work",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS steps (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          kind TEXT NOT NULL,
          started_at INTEGER NOT NULL,
          ended_at INTEGER NOT NULL,
          queued_ms INTEGER NOT NULL,
          input_tokens INTEGER,
          output_tokens INTEGER,
          outcome TEXT NOT NULL
        )`,
      ]),
  },
  {
    version: 5,
    description: "events refer to their message ({ seq }) or tool call ({ id, status }) instead of holding a copy",
    up: (storage) =>
      execAll(storage.sql, [
        `UPDATE events SET data = json_object('seq', json_extract(data, '$.seq')) WHERE type = 'message'`,
        `UPDATE events SET data = json_object('id', json_extract(data, '$.id'), 'status', json_extract(data, '$.status'))
         WHERE type IN ('tool_call', 'tool_result')`,
      ]),
  },
  {
    version: 6,
    description: "run_tools: the tools MCP servers offered when the run started, kept for the whole run; tool_calls.restarts",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS run_tools (
          name TEXT PRIMARY KEY,
          position INTEGER NOT NULL,
          server TEXT NOT NULL,
          remote_name TEXT NOT NULL,
          description TEXT NOT NULL,
          input_schema TEXT NOT NULL,
          at_most_once INTEGER NOT NULL
        )`,
        `ALTER TABLE tool_calls ADD COLUMN restarts INTEGER NOT NULL DEFAULT 0`,
      ]),
  },
  {
    version: 7,
    description: "notification outbox; who decided a tool call that needed approval, when, and how",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS outbox (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          type TEXT NOT NULL,
          created_at TEXT NOT NULL,
          session TEXT NOT NULL
        )`,
        `ALTER TABLE tool_calls ADD COLUMN decided_by TEXT`,
        `ALTER TABLE tool_calls ADD COLUMN decided_at TEXT`,
        `ALTER TABLE tool_calls ADD COLUMN decision TEXT`,
      ]),
  },
  {
    version: 8,
    description:
      "images and image_chunks; pending_messages.options; run state: invalid_outputs, output_error; " + "session limits: max_image_bytes",
    up: (storage) => {
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS images (
          id TEXT PRIMARY KEY,
          media_type TEXT NOT NULL,
          size_bytes INTEGER NOT NULL,
          width INTEGER NOT NULL,
          height INTEGER NOT NULL,
          created_at TEXT NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS image_chunks (
          image_id TEXT NOT NULL,
          idx INTEGER NOT NULL,
          data BLOB NOT NULL,
          PRIMARY KEY (image_id, idx)
        )`,
        `ALTER TABLE pending_messages ADD COLUMN options TEXT`,
      ]);
      const run = storage.kv.get<Record<string, unknown>>("run");
      if (run) storage.kv.put("run", { ...run, invalid_outputs: 0, output_error: null });
      const session = storage.kv.get<Record<string, unknown>>("session");
      const limits = (session?.limits ?? null) as Record<string, unknown> | null;
      // The default of the version that added the limit (5 MiB of base64), written out: a later
      // change of the default must not change what this step did. Lowered to the tenant's own
      // value at the session's next run, like every limit.
      if (session && limits && limits.max_image_bytes === undefined)
        storage.kv.put("session", { ...session, limits: { ...limits, max_image_bytes: 3_932_160 } });
    },
  },
  {
    version: 9,
    description:
      "messages.omitted: a refused exchange stays in the history but is not sent to the model again; a last run that ended refused is marked",
    up: (storage) => {
      execAll(storage.sql, [`ALTER TABLE messages ADD COLUMN omitted INTEGER NOT NULL DEFAULT 0`]);
      // Only the last run's ending is known; a refused one is marked as a refusal now would be.
      const run = storage.kv.get<Record<string, unknown>>("run");
      const start = Number(run?.run_start_seq ?? 0);
      if (run?.stop_reason === "refusal" && start > 0) storage.sql.exec("UPDATE messages SET omitted = 1 WHERE seq >= ?", start);
    },
  },
  {
    version: 10,
    description: "subagents: the child sessions the session's agent tool calls started, and what it last heard of each",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS subagents (
          tool_call_id TEXT PRIMARY KEY,
          session_id TEXT NOT NULL,
          run_start_seq INTEGER NOT NULL,
          started INTEGER NOT NULL DEFAULT 0,
          status TEXT,
          stop_reason TEXT,
          revision INTEGER NOT NULL DEFAULT -1,
          usage TEXT,
          cancel_sent INTEGER NOT NULL DEFAULT 0,
          created_at TEXT NOT NULL
        )`,
      ]),
  },
  {
    version: 11,
    description: "trace_spans: finished spans owed to the tenant's trace collector",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS trace_spans (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          span TEXT NOT NULL,
          created_at INTEGER NOT NULL
        )`,
      ]),
  },
  {
    version: 12,
    description: "the audit outbox: entries of decisions on the session's tool calls, owed to the tenant's log",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS audit_outbox (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          entry TEXT NOT NULL
        )`,
      ]),
  },
];
