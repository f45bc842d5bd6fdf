/**
 * Storage as earlier versions of the platform wrote it, for migration tests. Each layout is
 * written with the SQL and key-value shapes of its version, byte for byte as that code left it,
 * and never changed afterwards: a new version adds a new layout here.
 */
import type { TestSession } from "./agent-session";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";

export interface Layout {
  statements: readonly string[];
}

/** The Agent before versioned migrations: three tables, no `schema_version`. */
export const AGENT_LAYOUT_V0: Layout = {
  statements: [
    `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS tool_calls (id TEXT PRIMARY KEY, step INTEGER NOT NULL, message_seq INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, input TEXT NOT NULL, status TEXT NOT NULL, output TEXT, is_error INTEGER NOT NULL DEFAULT 0, reported INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_open ON tool_calls (reported, message_seq, position)`,
    `CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
  ],
};

/** The TenantIndex before versioned migrations. */
export const INDEX_LAYOUT_V0: Layout = {
  statements: [
    `CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY, created_by TEXT NOT NULL, status TEXT NOT NULL, stop_reason TEXT, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, steps INTEGER NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, revision INTEGER NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions (created_at, id)`,
    `CREATE INDEX IF NOT EXISTS sessions_by_status ON sessions (status, created_at, id)`,
    `CREATE INDEX IF NOT EXISTS sessions_by_creator ON sessions (created_by, created_at, id)`,
    `CREATE TABLE IF NOT EXISTS removed_sessions (id TEXT PRIMARY KEY, removed_at INTEGER NOT NULL)`,
    `CREATE INDEX IF NOT EXISTS removed_sessions_by_time ON removed_sessions (removed_at)`,
    `CREATE TABLE IF NOT EXISTS usage_daily (day TEXT PRIMARY KEY, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0, steps INTEGER NOT NULL DEFAULT 0, sessions_created INTEGER NOT NULL DEFAULT 0)`,
    `CREATE TABLE IF NOT EXISTS run_reservations (session_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS api_keys (key_id TEXT PRIMARY KEY, name TEXT NOT NULL, scopes TEXT NOT NULL, hash TEXT NOT NULL, created_by TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER, revoked_at INTEGER, last_used_at INTEGER)`,
    `CREATE INDEX IF NOT EXISTS api_keys_by_created ON api_keys (created_at, key_id)`,
    `CREATE TABLE IF NOT EXISTS idempotency (scope TEXT NOT NULL, key TEXT NOT NULL, body_hash TEXT NOT NULL, status INTEGER, body TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (scope, key))`,
    `CREATE INDEX IF NOT EXISTS idempotency_by_created ON idempotency (created_at)`,
  ],
};

/** The Agent at version 3 (before the outbox and the decision columns): v0 plus the steps table. */
export const AGENT_LAYOUT_V3: Layout = {
  statements: [
    ...AGENT_LAYOUT_V0.statements,
    `CREATE TABLE IF NOT EXISTS steps (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER NOT NULL, queued_ms INTEGER NOT NULL, input_tokens INTEGER, output_tokens INTEGER, outcome TEXT NOT NULL)`,
  ],
};

/** The TenantIndex at version 2 (before status webhooks): v0 plus the run queue. */
export const INDEX_LAYOUT_V2: Layout = {
  statements: [
    ...INDEX_LAYOUT_V0.statements,
    `CREATE TABLE IF NOT EXISTS run_queue (session_id TEXT PRIMARY KEY, queued_at INTEGER NOT NULL, granted_at INTEGER)`,
    `CREATE INDEX IF NOT EXISTS run_queue_by_time ON run_queue (queued_at, session_id)`,
  ],
};

const AT = "2026-11-20T10:00:00.000Z";

/** A finished one-step session: a user message, the answer, its events and its run state. */
export function writeLegacyAgent(storage: DurableObjectStorage, t: TestSession, layout: Layout): void {
  for (const statement of layout.statements) storage.sql.exec(statement);
  storage.sql.exec("INSERT INTO messages (role, content, created_at) VALUES ('user', ?, ?)", JSON.stringify([{ type: "text", text: "hello" }]), AT);
  storage.sql.exec("INSERT INTO messages (role, content, created_at) VALUES ('assistant', ?, ?)", JSON.stringify([{ type: "text", text: "hi there" }]), AT);
  storage.sql.exec("INSERT INTO events (type, data, created_at) VALUES ('status', ?, ?)", JSON.stringify({ status: "done", stop_reason: "end_turn", error: null }), AT);
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [],
    limits: BUILTIN_DEFAULT_LIMITS,
    context: null,
    metadata: null,
    created_at: AT,
  });
  storage.kv.put("run", {
    status: "done",
    generation: 1,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: "end_turn",
    usage: { steps: 1, input_tokens: 10, output_tokens: 5 },
    revision: 4,
    reported_revision: 4,
    updated_at: AT,
  });
}

/** A bound, registered index with one session row. */
export function writeLegacyIndex(storage: DurableObjectStorage, tenantId: string, layout: Layout): void {
  for (const statement of layout.statements) storage.sql.exec(statement);
  const at = Date.parse(AT);
  storage.sql.exec(
    "INSERT INTO sessions (id, created_by, status, stop_reason, input_tokens, output_tokens, steps, created_at, updated_at, revision) VALUES ('ses_legacy', 'user-1', 'done', 'end_turn', 10, 5, 1, ?, ?, 3)",
    at,
    at,
  );
  storage.kv.put("tenant_id", tenantId);
  storage.kv.put("created_at", at);
  storage.kv.put("registered", true);
}

/** Tables the code created (the runtime's own `_cf_` tables and SQLite's are left out). */
export function userTables(storage: DurableObjectStorage): string[] {
  return storage.sql
    .exec("SELECT name FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
    .toArray()
    .map((row) => String(row.name));
}

/**
 * A session as version 3 left it while waiting for the approval of one `get_time` call: the
 * history, the waiting call (no decision columns), the run state with coalesced reports, and
 * `schema_version` 3. Its session settings have no `notify_url`.
 */
export function writeWaitingAgentV3(storage: DurableObjectStorage, t: TestSession): void {
  for (const statement of AGENT_LAYOUT_V3.statements) storage.sql.exec(statement);
  storage.sql.exec("INSERT INTO messages (role, content, created_at) VALUES ('user', ?, ?)", JSON.stringify([{ type: "text", text: "what time is it?" }]), AT);
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at) VALUES ('assistant', ?, ?)",
    JSON.stringify([{ type: "tool_use", id: "toolu_legacy", name: "get_time", input: {} }]),
    AT,
  );
  storage.sql.exec(
    "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, created_at) VALUES ('toolu_legacy', 1, 2, 0, 'get_time', '{}', 'waiting_approval', ?)",
    AT,
  );
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    limits: BUILTIN_DEFAULT_LIMITS,
    context: null,
    metadata: null,
    created_at: AT,
  });
  storage.kv.put("run", {
    status: "waiting_approval",
    generation: 1,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: null,
    usage: { steps: 1, input_tokens: 10, output_tokens: 5 },
    revision: 4,
    reported_revision: 4,
    urgent_revision: 4,
    last_report_at: 0,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    updated_at: AT,
  });
  storage.kv.put("schema_version", 3);
}
