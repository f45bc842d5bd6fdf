/**
 * Storage as earlier versions of the platform wrote it, for migration tests. Each layout is
 * written with the SQL and key-value shapes of its version, byte for byte as that code left it,
 * and never changed afterwards: a new version adds a new layout here.
 */
import type { TestSession } from "./agent-session";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { migrate } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { MEMORY_STORE_MIGRATIONS } from "../../src/memory/migrations";
import { insertEvents } from "./event-rows";

/** A session's limits as every version before `max_schedules` stored them: the limits of that time, written out. */
export const LIMITS_BEFORE_SCHEDULES = {
  max_steps_per_run: 20,
  max_tokens_per_call: 4096,
  max_tokens_per_session: 200_000,
  max_tool_output_chars: 8000,
  max_concurrent_runs: 10,
  max_request_bytes: 1024 * 1024,
  requests_per_minute: 600,
  max_tokens_per_day: null,
} as const;

export interface Layout {
  statements: readonly string[];
  /** The `schema_version` that version recorded; absent before versions were recorded. */
  version?: number;
}

/** The session object before versioned migrations: three tables, no `schema_version`. */
export const AGENT_LAYOUT_V0: Layout = {
  statements: [
    `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS tool_calls (id TEXT PRIMARY KEY, step INTEGER NOT NULL, message_seq INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, input TEXT NOT NULL, status TEXT NOT NULL, output TEXT, is_error INTEGER NOT NULL DEFAULT 0, reported INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_open ON tool_calls (reported, message_seq, position)`,
    `CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
  ],
};

/** The session object at migration 2: the same tables, the version recorded, the run state with coalesced reports. */
export const AGENT_LAYOUT_V2: Layout = { statements: AGENT_LAYOUT_V0.statements, version: 2 };

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

/** The TenantIndex at migration 1: the same tables, the version recorded (no cache counts). */
export const INDEX_LAYOUT_V1: Layout = { statements: INDEX_LAYOUT_V0.statements, version: 1 };

const AT = "2026-11-20T10:00:00.000Z";

/**
 * A session of two runs as the version at migration 2 left it: a tool round trip, then a second
 * user message answered, with no token estimates and a run state without cache counts.
 */
export function writeAgentV2(storage: DurableObjectStorage, t: TestSession): void {
  const layout = AGENT_LAYOUT_V2;
  for (const statement of layout.statements) storage.sql.exec(statement);
  const rows: [string, unknown[]][] = [
    ["user", [{ type: "text", text: "what time is it?" }]],
    [
      "assistant",
      [
        { type: "text", text: "checking" },
        { type: "tool_use", id: "toolu_v2", name: "get_time", input: {} },
      ],
    ],
    ["user", [{ type: "tool_result", tool_use_id: "toolu_v2", content: "noon" }]],
    ["assistant", [{ type: "text", text: "it is noon" }]],
    ["user", [{ type: "text", text: "and tomorrow?" }]],
    ["assistant", [{ type: "text", text: "noon again" }]],
  ];
  for (const [role, content] of rows)
    storage.sql.exec("INSERT INTO messages (role, content, created_at) VALUES (?, ?, ?)", role, JSON.stringify(content), AT);
  storage.sql.exec(
    "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, output, is_error, reported, created_at) VALUES ('toolu_v2', 1, 2, 0, 'get_time', '{}', 'done', 'noon', 0, 1, ?)",
    AT,
  );
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [{ type: "builtin", name: "get_time" }],
    limits: LIMITS_BEFORE_SCHEDULES,
    context: { kept: "by an earlier caller" },
    metadata: null,
    created_at: AT,
  });
  storage.kv.put("run", {
    status: "done",
    generation: 2,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: "end_turn",
    usage: { steps: 3, input_tokens: 30, output_tokens: 15 },
    revision: 9,
    reported_revision: 9,
    urgent_revision: 9,
    last_report_at: Date.parse(AT),
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    updated_at: AT,
  });
  storage.kv.put("schema_version", layout.version);
}

/** A finished one-step session: a user message, the answer, its events and its run state. */
export function writeLegacySession(storage: DurableObjectStorage, t: TestSession, layout: Layout): void {
  for (const statement of layout.statements) storage.sql.exec(statement);
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at) VALUES ('user', ?, ?)",
    JSON.stringify([{ type: "text", text: "hello" }]),
    AT,
  );
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at) VALUES ('assistant', ?, ?)",
    JSON.stringify([{ type: "text", text: "hi there" }]),
    AT,
  );
  const status = { status: "done", stop_reason: "end_turn", error: null };
  // The event log's table as the layout has it: one row per event before migration 13, one per transaction after.
  if (userTables(storage).includes("event_batches")) insertEvents(storage.sql, [["status", status, AT]]);
  else storage.sql.exec("INSERT INTO events (type, data, created_at) VALUES ('status', ?, ?)", JSON.stringify(status), AT);
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [],
    limits: LIMITS_BEFORE_SCHEDULES,
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

/**
 * `writeLegacySession`'s session as made from an agent by a version before the agent's name was
 * kept with it: the pin alone (`agent: { id, version }`), no `agent_name`.
 */
export function writeLegacyAgentSession(
  storage: DurableObjectStorage,
  t: TestSession,
  layout: Layout,
  agent: { id: string; version: number },
): void {
  writeLegacySession(storage, t, layout);
  storage.kv.put("session", { ...storage.kv.get<Record<string, unknown>>("session"), agent });
}

/** A bound, registered index with one session row. */
export function writeLegacyIndex(storage: DurableObjectStorage, tenantId: string, layout: Layout): void {
  for (const statement of layout.statements) storage.sql.exec(statement);
  if (layout.version !== undefined) storage.kv.put("schema_version", layout.version);
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
 * Version 2 (before events referred to their rows): a finished two-step run whose `message`,
 * `tool_call` and `tool_result` events hold whole copies of the message or call, as that
 * version's event log stored them.
 */
export function writeAgentV2WithEvents(storage: DurableObjectStorage, t: TestSession): void {
  // Events are dated now, so the log's age retention keeps them.
  const AT = new Date().toISOString();
  for (const statement of AGENT_LAYOUT_V0.statements) storage.sql.exec(statement);
  const content = [
    ["user", [{ type: "text", text: "what time is it?" }]],
    ["assistant", [{ type: "tool_use", id: "toolu_legacy", name: "get_time", input: {} }]],
    ["user", [{ type: "tool_result", tool_use_id: "toolu_legacy", content: "2026-11-20T10:00:00.000Z" }]],
    ["assistant", [{ type: "text", text: "it is ten" }]],
  ] as const;
  const messages = content.map(([role, blocks], n) => {
    storage.sql.exec("INSERT INTO messages (role, content, created_at) VALUES (?, ?, ?)", role, JSON.stringify(blocks), AT);
    return { seq: n + 1, role, content: blocks, created_at: AT };
  });
  storage.sql.exec(
    "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, output, is_error, reported, created_at, started_at, finished_at) VALUES ('toolu_legacy', 1, 2, 0, 'get_time', '{}', 'done', ?, 0, 1, ?, ?, ?)",
    "2026-11-20T10:00:00.000Z",
    AT,
    AT,
    AT,
  );
  const call = {
    id: "toolu_legacy",
    step: 1,
    name: "get_time",
    input: {},
    status: "pending",
    output: null,
    is_error: false,
    created_at: AT,
    started_at: null,
    finished_at: null,
  };
  const finished = { ...call, status: "done", output: "2026-11-20T10:00:00.000Z", started_at: AT, finished_at: AT };
  const usage1 = { steps: 1, input_tokens: 10, output_tokens: 5 };
  const usage2 = { steps: 2, input_tokens: 20, output_tokens: 10 };
  const events: [string, unknown][] = [
    ["status", { status: "running", stop_reason: null, error: null }],
    ["message", messages[0]],
    ["message", messages[1]],
    ["tool_call", call],
    ["usage", usage1],
    ["tool_result", finished],
    ["message", messages[2]],
    ["message", messages[3]],
    ["usage", usage2],
    ["status", { status: "done", stop_reason: "end_turn", error: null }],
  ];
  for (const [type, data] of events)
    storage.sql.exec("INSERT INTO events (type, data, created_at) VALUES (?, ?, ?)", type, JSON.stringify(data), AT);
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [{ type: "builtin", name: "get_time" }],
    limits: LIMITS_BEFORE_SCHEDULES,
    context: null,
    metadata: null,
    created_at: AT,
  });
  storage.kv.put("run", {
    status: "done",
    generation: 1,
    steps: 2,
    attempts: 0,
    error: null,
    stop_reason: "end_turn",
    usage: usage2,
    revision: 8,
    reported_revision: 8,
    urgent_revision: 0,
    last_report_at: 0,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    updated_at: AT,
  });
  storage.kv.put("schema_version", 2);
}

/**
 * Storage at `version`, built by the first `version` migration steps: deployed steps are never
 * edited, so these are exactly the steps that version ran.
 */
export function migrateSessionTo(storage: DurableObjectStorage, version: number): void {
  migrate(storage, SESSION_MIGRATIONS.slice(0, version));
}

export function migrateIndexTo(storage: DurableObjectStorage, version: number): void {
  migrate(storage, TENANT_INDEX_MIGRATIONS.slice(0, version));
}

export function migrateMemoryStoreTo(storage: DurableObjectStorage, version: number): void {
  migrate(storage, MEMORY_STORE_MIGRATIONS.slice(0, version));
}

/**
 * A session as version 6 (MCP run tools; before the outbox and the decision columns) left it
 * while waiting for the approval of one `get_time` call: the history, the waiting call, that
 * version's run state, and session settings without `notify_url`.
 */
export function writeWaitingAgentV6(storage: DurableObjectStorage, t: TestSession): void {
  migrateSessionTo(storage, 6);
  const at = new Date().toISOString();
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('user', ?, ?, 5, 'input')",
    JSON.stringify([{ type: "text", text: "what time is it?" }]),
    at,
  );
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('assistant', ?, ?, 8, 'tool_use')",
    JSON.stringify([{ type: "tool_use", id: "toolu_legacy", name: "get_time", input: {} }]),
    at,
  );
  storage.sql.exec(
    "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, created_at) VALUES ('toolu_legacy', 1, 2, 0, 'get_time', '{}', 'waiting_approval', ?)",
    at,
  );
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    limits: LIMITS_BEFORE_SCHEDULES,
    context: { strategy: "auto" },
    metadata: null,
    created_at: at,
  });
  storage.kv.put("run", {
    status: "waiting_approval",
    generation: 1,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: null,
    usage: { steps: 1, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: 4,
    reported_revision: 4,
    urgent_revision: 4,
    last_report_at: 0,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    run_start_seq: 1,
    token_ratio: 1,
    updated_at: at,
  });
}

/**
 * A session's settings and run state as versions 12 to 15 stored them: the run state with every
 * field of that time (`runs`, the output counters), usage of `steps` steps at 10 tokens in and 5
 * out, and one revision, reported and urgent alike.
 */
export function putSessionStateV12(
  storage: DurableObjectStorage,
  t: TestSession,
  at: string,
  state: { tools: readonly unknown[]; status: string; steps: number; stopReason: string | null; revision: number },
): void {
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: state.tools,
    limits: LIMITS_BEFORE_SCHEDULES,
    context: { strategy: "auto" },
    metadata: null,
    created_at: at,
  });
  storage.kv.put("run", {
    status: state.status,
    generation: 1,
    runs: 1,
    steps: state.steps,
    attempts: 0,
    error: null,
    stop_reason: state.stopReason,
    usage: { steps: state.steps, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: state.revision,
    reported_revision: state.revision,
    urgent_revision: state.revision,
    last_report_at: 0,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    run_start_seq: 1,
    token_ratio: 1,
    invalid_outputs: 0,
    output_error: null,
    updated_at: at,
  });
}

/**
 * The session object at migration 6, the last before structured output and images: every table as
 * versions 1 to 6 left them (no images, no queued message options).
 */
export const AGENT_LAYOUT_V6: Layout = {
  statements: [
    `CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY AUTOINCREMENT, role TEXT NOT NULL, content TEXT NOT NULL, created_at TEXT NOT NULL, tokens INTEGER NOT NULL DEFAULT 0, kind TEXT NOT NULL DEFAULT 'input')`,
    `CREATE TABLE IF NOT EXISTS tool_calls (id TEXT PRIMARY KEY, step INTEGER NOT NULL, message_seq INTEGER NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL, input TEXT NOT NULL, status TEXT NOT NULL, output TEXT, is_error INTEGER NOT NULL DEFAULT 0, reported INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, restarts INTEGER NOT NULL DEFAULT 0)`,
    `CREATE INDEX IF NOT EXISTS tool_calls_open ON tool_calls (reported, message_seq, position)`,
    `CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS summaries (id INTEGER PRIMARY KEY AUTOINCREMENT, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, content TEXT NOT NULL, tokens INTEGER NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS pending_messages (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT NOT NULL, created_at TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS steps (seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER NOT NULL, queued_ms INTEGER NOT NULL, input_tokens INTEGER, output_tokens INTEGER, outcome TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS run_tools (name TEXT PRIMARY KEY, position INTEGER NOT NULL, server TEXT NOT NULL, remote_name TEXT NOT NULL, description TEXT NOT NULL, input_schema TEXT NOT NULL, at_most_once INTEGER NOT NULL)`,
  ],
  version: 6,
};

/**
 * A session as version 6 left it: a run going (its model call not made yet) with a message
 * queued behind it, session limits without `max_image_bytes`, a run state without the output
 * counters.
 */
export function writeAgentV6Running(storage: DurableObjectStorage, t: TestSession): void {
  const at = new Date().toISOString();
  for (const statement of AGENT_LAYOUT_V6.statements) storage.sql.exec(statement);
  storage.sql.exec(
    "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES ('user', ?, ?, 8, 'input')",
    JSON.stringify([{ type: "text", text: "first" }]),
    at,
  );
  storage.sql.exec(
    "INSERT INTO pending_messages (content, created_at) VALUES (?, ?)",
    JSON.stringify([{ type: "text", text: "queued" }]),
    at,
  );
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [],
    limits: LIMITS_BEFORE_SCHEDULES,
    context: { strategy: "auto" },
    metadata: null,
    created_at: at,
  });
  storage.kv.put("run", {
    status: "running",
    generation: 1,
    steps: 0,
    attempts: 0,
    error: null,
    stop_reason: null,
    usage: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: 3,
    reported_revision: 3,
    urgent_revision: 3,
    last_report_at: Date.now(),
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: Date.now(),
    run_started_at: Date.now(),
    run_start_seq: 1,
    token_ratio: 1,
    updated_at: at,
  });
  storage.kv.put("schema_version", 6);
}

/** A schedule row as Scheduler storage version 1 held it (before `expires_at`). */
export interface SchedulerV1Row {
  id: string;
  created_by: string;
  scopes: string[];
  via: "jwt" | "api_key";
  key_id: string | null;
  cron: string;
}

/**
 * Scheduler storage as version 1 wrote it (its table exactly as that step created it, typed out
 * here so a later step cannot change it), bound to `tenantId`, with `rows` active and due at their
 * next minute, and the alarm set for them.
 */
export async function writeSchedulerV1(storage: DurableObjectStorage, tenantId: string, rows: readonly SchedulerV1Row[]): Promise<void> {
  storage.sql.exec(`CREATE TABLE IF NOT EXISTS schedules (
    id TEXT PRIMARY KEY, created_by TEXT NOT NULL, scopes TEXT NOT NULL, via TEXT NOT NULL, key_id TEXT, cron TEXT NOT NULL,
    timezone TEXT NOT NULL, paused INTEGER NOT NULL, action TEXT NOT NULL, next_at INTEGER, disabled_reason TEXT, disabled_at INTEGER,
    last_fired_at INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)`);
  storage.sql.exec(`CREATE TABLE IF NOT EXISTS firings (
    schedule_id TEXT NOT NULL, scheduled_at INTEGER NOT NULL, fired_at INTEGER NOT NULL, session_id TEXT, outcome TEXT NOT NULL,
    error_code TEXT, error TEXT, attempts INTEGER NOT NULL DEFAULT 0, retry_at INTEGER, finished_at INTEGER, PRIMARY KEY (schedule_id, scheduled_at))`);
  const at = Date.parse(AT);
  const nextAt = Math.ceil((Date.now() + 60_000) / 60_000) * 60_000;
  for (const row of rows) {
    storage.sql.exec(
      `INSERT INTO schedules (id, created_by, scopes, via, key_id, cron, timezone, paused, action, next_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 'UTC', 0, ?, ?, ?, ?)`,
      row.id,
      row.created_by,
      JSON.stringify(row.scopes),
      row.via,
      row.key_id,
      row.cron,
      JSON.stringify({ session: { input: "the scheduled job" }, message: null }),
      nextAt,
      at,
      at,
    );
  }
  storage.kv.put("schema_version", 1);
  storage.kv.put("tenant_id", tenantId);
  storage.kv.put("created_at", at);
  storage.kv.put("registered", true);
  await storage.setAlarm(nextAt);
}

/**
 * A session as version 8 (before messages.omitted) left it after a refused run: the refused
 * prompt and the partial answer, the run state `done` with `refusal`, and an earlier exchange
 * that ended well.
 */
export function writeRefusedSessionV8(storage: DurableObjectStorage, t: TestSession): void {
  migrateSessionTo(storage, 8);
  const at = new Date().toISOString();
  const rows: [string, string, unknown[]][] = [
    ["user", "input", [{ type: "text", text: "hello" }]],
    ["assistant", "answer", [{ type: "text", text: "hi there" }]],
    ["user", "input", [{ type: "text", text: "something refused" }]],
    ["assistant", "answer", [{ type: "text", text: "I can't help with that." }]],
  ];
  for (const [role, kind, content] of rows) {
    storage.sql.exec(
      "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES (?, ?, ?, 8, ?)",
      role,
      JSON.stringify(content),
      at,
      kind,
    );
  }
  storage.kv.put("session", {
    id: t.sessionId,
    tenant_id: t.tenantId,
    created_by: "user-1",
    model: t.model.key,
    system: null,
    tools: [],
    limits: { ...LIMITS_BEFORE_SCHEDULES, max_image_bytes: 3_932_160 },
    context: { strategy: "auto" },
    output_schema: null,
    metadata: null,
    notify_url: null,
    created_at: at,
  });
  storage.kv.put("run", {
    status: "done",
    generation: 2,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: "refusal",
    usage: { steps: 2, input_tokens: 20, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: 6,
    reported_revision: 6,
    urgent_revision: 6,
    last_report_at: Date.now(),
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    run_start_seq: 3,
    token_ratio: 1,
    invalid_outputs: 0,
    output_error: null,
    updated_at: at,
  });
}

export interface LegacyMemoryItem {
  namespace: string;
  key: string;
  value: Record<string, unknown>;
  /** The text version 1 indexed: the key and every string in the value, object keys included. */
  body: string;
}

/**
 * A bound tenant's memory store at version 1 (before the item count and the index's scope), its
 * items written as that version's `put` wrote a first version: the row, its text in the one-column
 * index, and the version row.
 */
export function writeMemoryV1(storage: DurableObjectStorage, tenantId: string, items: readonly LegacyMemoryItem[]): void {
  migrate(storage, MEMORY_STORE_MIGRATIONS.slice(0, 1));
  const at = Date.parse(AT);
  for (const item of items) {
    const value = JSON.stringify(item.value);
    const { id } = storage.sql
      .exec<{ id: number }>(
        "INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at, expires_at, ttl_ms, refresh_ttl) VALUES (?, ?, ?, 1, 'user-1', ?, ?, NULL, NULL, 0) RETURNING id",
        item.namespace,
        item.key,
        value,
        at,
        at,
      )
      .one();
    storage.sql.exec("INSERT INTO items_fts (rowid, body) VALUES (?, ?)", id, item.body);
    storage.sql.exec(
      "INSERT INTO item_versions (namespace, key, version, value, created_by, created_at) VALUES (?, ?, 1, ?, 'user-1', ?)",
      item.namespace,
      item.key,
      value,
      at,
    );
  }
  storage.kv.put("tenant_id", tenantId);
  storage.kv.put("created_at", at);
  storage.kv.put("registered", true);
}
