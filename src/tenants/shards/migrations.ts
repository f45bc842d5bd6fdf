/**
 * Storage migrations of a tenant shard (src/tenants/shards/), oldest first (runner:
 * src/storage/migrations.ts; layout: ../storage.md). Append a step for every change; never edit one.
 * Version 1 is the shape the tenant index's session tables had at its version 16, written out whole.
 */
import { execAll, type Migration } from "../../storage/migrations";

export const TENANT_SHARD_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "the shard's sessions, their metadata and tombstones, usage by day and by rollup, run slots, queue and budget rows",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS sessions (
          id TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          status TEXT NOT NULL,
          stop_reason TEXT,
          input_tokens INTEGER NOT NULL,
          output_tokens INTEGER NOT NULL,
          steps INTEGER NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          revision INTEGER NOT NULL,
          cache_read_tokens INTEGER NOT NULL DEFAULT 0,
          cache_write_tokens INTEGER NOT NULL DEFAULT 0,
          agent_id TEXT,
          agent_version INTEGER,
          parent_session_id TEXT,
          title TEXT,
          model TEXT NOT NULL DEFAULT '',
          api_key_id TEXT NOT NULL DEFAULT '',
          runs INTEGER NOT NULL DEFAULT 0
        )`,
        `CREATE INDEX IF NOT EXISTS sessions_by_created ON sessions (created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_status ON sessions (status, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_creator ON sessions (created_by, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_agent ON sessions (agent_id, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_parent ON sessions (parent_session_id, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (updated_at, id)`,
        `CREATE TABLE IF NOT EXISTS session_metadata (
          session_id TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          PRIMARY KEY (session_id, key)
        )`,
        `CREATE INDEX IF NOT EXISTS session_metadata_by_entry ON session_metadata (key, value, session_id)`,
        `CREATE TABLE IF NOT EXISTS removed_sessions (
          id TEXT PRIMARY KEY,
          removed_at INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS removed_sessions_by_time ON removed_sessions (removed_at)`,
        `CREATE TABLE IF NOT EXISTS usage_daily (
          day TEXT PRIMARY KEY,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          steps INTEGER NOT NULL DEFAULT 0,
          sessions_created INTEGER NOT NULL DEFAULT 0,
          cache_read_tokens INTEGER NOT NULL DEFAULT 0,
          cache_write_tokens INTEGER NOT NULL DEFAULT 0
        )`,
        `CREATE TABLE IF NOT EXISTS usage_rollup (
          day TEXT NOT NULL,
          model TEXT NOT NULL,
          api_key_id TEXT NOT NULL,
          created_by TEXT NOT NULL,
          agent_id TEXT NOT NULL,
          runs INTEGER NOT NULL DEFAULT 0,
          steps INTEGER NOT NULL DEFAULT 0,
          input_tokens INTEGER NOT NULL DEFAULT 0,
          output_tokens INTEGER NOT NULL DEFAULT 0,
          cache_read_tokens INTEGER NOT NULL DEFAULT 0,
          cache_write_tokens INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (day, model, api_key_id, created_by, agent_id)
        )`,
        `CREATE INDEX IF NOT EXISTS usage_rollup_by_creator ON usage_rollup (created_by, day)`,
        `CREATE INDEX IF NOT EXISTS usage_rollup_by_key ON usage_rollup (api_key_id, day)`,
        `CREATE TABLE IF NOT EXISTS run_reservations (
          session_id TEXT PRIMARY KEY,
          expires_at INTEGER NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS run_queue (
          session_id TEXT PRIMARY KEY,
          queued_at INTEGER NOT NULL,
          granted_at INTEGER
        )`,
        `CREATE INDEX IF NOT EXISTS run_queue_by_time ON run_queue (queued_at, session_id)`,
        `CREATE TABLE IF NOT EXISTS budget_reservations (
          session_id TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          api_key_id TEXT NOT NULL,
          tokens INTEGER NOT NULL,
          base_tokens INTEGER NOT NULL,
          day TEXT NOT NULL
        )`,
        `CREATE TABLE IF NOT EXISTS budget_waits (
          session_id TEXT PRIMARY KEY,
          budget TEXT NOT NULL,
          owner TEXT NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS budget_waits_by_budget ON budget_waits (budget, owner)`,
      ]),
  },
  {
    version: 2,
    description: "whose reservation each is, as the index's table has it (a shard's own are all its own: '')",
    // The same shape as the index's version 18, so the modules both keep their rows with stay one; a shard from before keeps its rows.
    up: (storage) => execAll(storage.sql, [`ALTER TABLE budget_reservations ADD COLUMN shard TEXT NOT NULL DEFAULT ''`]),
  },
];
