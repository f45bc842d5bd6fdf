/**
 * The session object's tables as the migrations leave them at `version`, written out, for a
 * session created now: one statement per table instead of every step since the first (each
 * table rebuilt, each counter and `schema_version` written again), which a new session would
 * otherwise pay for in rows written. Frozen like a migration: when a step is appended, this is
 * brought to its version too; `test/storage/schema-baseline.test.ts` holds that the two give the
 * same tables, columns, keys and indexes, and that the baseline is at the newest version.
 */
import type { Baseline } from "../../../storage/migrations";

export const SESSION_BASELINE: Baseline = {
  version: 13,
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
    `CREATE TABLE event_batches (
      last_id INTEGER PRIMARY KEY,
      first_id INTEGER NOT NULL,
      created_at TEXT NOT NULL,
      events TEXT NOT NULL
    )`,
    `CREATE TABLE summaries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      first_seq INTEGER NOT NULL,
      last_seq INTEGER NOT NULL,
      content TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      created_at TEXT NOT NULL
    )`,
    `CREATE TABLE pending_messages (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      content TEXT NOT NULL,
      created_at TEXT NOT NULL,
      options TEXT
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
    `CREATE TABLE run_tools (
      name TEXT PRIMARY KEY,
      position INTEGER NOT NULL,
      server TEXT NOT NULL,
      remote_name TEXT NOT NULL,
      description TEXT NOT NULL,
      input_schema TEXT NOT NULL,
      at_most_once INTEGER NOT NULL
    )`,
    `CREATE TABLE outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      created_at TEXT NOT NULL,
      session TEXT NOT NULL
    )`,
    `CREATE TABLE images (
      id TEXT PRIMARY KEY,
      media_type TEXT NOT NULL,
      size_bytes INTEGER NOT NULL,
      width INTEGER NOT NULL,
      height INTEGER NOT NULL,
      created_at TEXT NOT NULL
    )`,
    `CREATE TABLE image_chunks (
      image_id TEXT NOT NULL,
      idx INTEGER NOT NULL,
      data BLOB NOT NULL,
      PRIMARY KEY (image_id, idx)
    )`,
    `CREATE TABLE subagents (
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
    `CREATE TABLE trace_spans (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      span TEXT NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE TABLE audit_outbox (
      id TEXT PRIMARY KEY,
      created_at INTEGER NOT NULL,
      entry TEXT NOT NULL
    )`,
  ],
};
