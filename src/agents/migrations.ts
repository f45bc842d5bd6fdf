/**
 * Storage migrations of a tenant's agent store, oldest first (runner: src/storage/migrations.ts;
 * layout: storage.md). Append a step for every change; never edit one. Times are integer
 * milliseconds since the epoch.
 */
import { execAll, type Migration } from "../storage/migrations";
import { DATASETS_AND_EVALS_MIGRATION } from "../evals/store/migrations-datasets-evals";

export const AGENT_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "agents, their immutable versions and their aliases",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS agents (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          latest_version INTEGER NOT NULL,
          archived_at INTEGER,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        )`,
        // A name is unique among live agents only: an archived agent's name can be taken again.
        `CREATE UNIQUE INDEX IF NOT EXISTS agents_live_name ON agents (name) WHERE archived_at IS NULL`,
        `CREATE INDEX IF NOT EXISTS agents_by_created ON agents (created_at, id)`,
        `CREATE INDEX IF NOT EXISTS agents_by_name ON agents (name, created_at, id)`,
        `CREATE TABLE IF NOT EXISTS agent_versions (
          agent_id TEXT NOT NULL,
          version INTEGER NOT NULL,
          definition TEXT NOT NULL,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (agent_id, version)
        )`,
        `CREATE TABLE IF NOT EXISTS agent_aliases (
          agent_id TEXT NOT NULL,
          alias TEXT NOT NULL,
          version INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (agent_id, alias)
        )`,
      ]),
  },
  {
    version: 2,
    description: "the audit outbox: entries of this store's changes owed to the tenant's log",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS audit_outbox (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          entry TEXT NOT NULL
        )`,
      ]),
  },
  DATASETS_AND_EVALS_MIGRATION,
  {
    version: 4,
    description: "alias canaries with their live counts, the runs counted, and the notifications owed to the tenant's index",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS alias_canaries (
          agent_id TEXT NOT NULL,
          alias TEXT NOT NULL,
          version INTEGER NOT NULL,
          percent INTEGER NOT NULL,
          rollback TEXT,
          runs INTEGER NOT NULL DEFAULT 0,
          failures INTEGER NOT NULL DEFAULT 0,
          scored INTEGER NOT NULL DEFAULT 0,
          score_sum REAL NOT NULL DEFAULT 0,
          started_at INTEGER NOT NULL,
          PRIMARY KEY (agent_id, alias)
        )`,
        `CREATE TABLE IF NOT EXISTS canary_runs (
          agent_id TEXT NOT NULL,
          alias TEXT NOT NULL,
          session_id TEXT NOT NULL,
          run INTEGER NOT NULL,
          PRIMARY KEY (agent_id, alias, session_id, run)
        )`,
        `CREATE TABLE IF NOT EXISTS notification_outbox (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          batch TEXT NOT NULL
        )`,
      ]),
  },
];
