/**
 * Storage migrations of the Scheduler, oldest first (runner: src/storage/migrations.ts; layout:
 * storage.md). Append a step for every change; never edit one. Times are integer milliseconds
 * since the epoch.
 */
import { execAll, type Migration } from "../storage/migrations";

export const SCHEDULER_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "schedules and their firings",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS schedules (
          id TEXT PRIMARY KEY,
          created_by TEXT NOT NULL,
          scopes TEXT NOT NULL,
          via TEXT NOT NULL,
          key_id TEXT,
          cron TEXT NOT NULL,
          timezone TEXT NOT NULL,
          paused INTEGER NOT NULL,
          action TEXT NOT NULL,
          next_at INTEGER,
          disabled_reason TEXT,
          disabled_at INTEGER,
          last_fired_at INTEGER,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL
        )`,
        `CREATE INDEX IF NOT EXISTS schedules_by_created ON schedules (created_at, id)`,
        `CREATE INDEX IF NOT EXISTS schedules_by_creator ON schedules (created_by, created_at, id)`,
        `CREATE INDEX IF NOT EXISTS schedules_by_next ON schedules (next_at)`,
        `CREATE INDEX IF NOT EXISTS schedules_by_key ON schedules (key_id)`,
        `CREATE TABLE IF NOT EXISTS firings (
          schedule_id TEXT NOT NULL,
          scheduled_at INTEGER NOT NULL,
          fired_at INTEGER NOT NULL,
          session_id TEXT,
          outcome TEXT NOT NULL,
          error_code TEXT,
          error TEXT,
          attempts INTEGER NOT NULL DEFAULT 0,
          retry_at INTEGER,
          finished_at INTEGER,
          PRIMARY KEY (schedule_id, scheduled_at)
        )`,
        `CREATE INDEX IF NOT EXISTS firings_by_retry ON firings (retry_at)`,
      ]),
  },
];
