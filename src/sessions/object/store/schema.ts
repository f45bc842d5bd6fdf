/**
 * The session object's tables as the migrations leave them at `version`, written out, for a
 * session created now: one statement per table instead of every step since the first (each
 * table rebuilt, each counter and `schema_version` written again), which a new session would
 * otherwise pay for in rows written. Frozen like a migration: when a step is appended, this is
 * brought to its version too; `test/storage/schema-baseline.test.ts` holds that the two give the
 * same tables, columns, keys and indexes, and that the baseline is at the newest version.
 *
 * Only the tables every session writes are made with it. The others (`SESSION_ON_DEMAND_TABLES`)
 * are made by the first write that needs them (storage/on-demand-tables.ts): a table is a page
 * of its own even when empty, and most sessions never queue a message, summarise, store an
 * image, call an MCP server or a sub-agent, or export a trace.
 */
import type { Baseline } from "../../../storage/migrations";

export const SESSION_BASELINE: Baseline = {
  version: 19,
  statements: [
    `CREATE TABLE messages (
      seq INTEGER PRIMARY KEY,
      role TEXT NOT NULL,
      content TEXT NOT NULL,
      created_at TEXT NOT NULL,
      tokens INTEGER NOT NULL DEFAULT 0,
      kind TEXT NOT NULL DEFAULT 'input',
      omitted INTEGER NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE tool_calls (
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
      policy TEXT,
      PRIMARY KEY (id)
    ) WITHOUT ROWID`,
    `CREATE TABLE event_batches (
      last_id INTEGER PRIMARY KEY,
      first_id INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      events TEXT NOT NULL
    )`,
    `CREATE TABLE steps (
      seq INTEGER PRIMARY KEY,
      kind TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      ended_at INTEGER NOT NULL,
      queued_ms INTEGER NOT NULL,
      input_tokens INTEGER,
      output_tokens INTEGER,
      outcome TEXT NOT NULL
    )`,
  ],
};

export type SessionOnDemandTable = "summaries" | "pending_messages" | "run_tools" | "images" | "subagents" | "trace_spans" | "audit_outbox";

/**
 * The tables made on first write, as version 14 shapes them (`run_tools` with migration 17's column; each also the shape migration 14
 * leaves a non-empty one in). None keeps an AUTOINCREMENT counter: each key only orders rows
 * (a reused key of a deleted row is harmless), and the counter is a table and a row written of
 * its own. `images` comes with `image_chunks`.
 */
export const SESSION_ON_DEMAND_TABLES: Readonly<Record<SessionOnDemandTable, readonly string[]>> = {
  summaries: [
    `CREATE TABLE IF NOT EXISTS summaries (
      id INTEGER PRIMARY KEY,
      first_seq INTEGER NOT NULL,
      last_seq INTEGER NOT NULL,
      content TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      created_at TEXT NOT NULL
    )`,
  ],
  pending_messages: [
    `CREATE TABLE IF NOT EXISTS pending_messages (
      id INTEGER PRIMARY KEY,
      content TEXT NOT NULL,
      created_at TEXT NOT NULL,
      options TEXT
    )`,
  ],
  run_tools: [
    `CREATE TABLE IF NOT EXISTS run_tools (
      name TEXT PRIMARY KEY,
      position INTEGER NOT NULL,
      server TEXT NOT NULL,
      remote_name TEXT NOT NULL,
      description TEXT NOT NULL,
      input_schema TEXT NOT NULL,
      at_most_once INTEGER NOT NULL,
      output_schema TEXT
    )`,
  ],
  images: [
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
  ],
  subagents: [
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
  ],
  trace_spans: [
    `CREATE TABLE IF NOT EXISTS trace_spans (
      seq INTEGER PRIMARY KEY,
      span TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`,
  ],
  audit_outbox: [
    `CREATE TABLE IF NOT EXISTS audit_outbox (
      id TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL,
      entry TEXT NOT NULL
    )`,
  ],
};
