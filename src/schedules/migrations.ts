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
  {
    version: 2,
    description: "schedules.expires_at: a schedule created with a plain JWT ends with its creator's token",
    up: (storage) => {
      storage.sql.exec(`ALTER TABLE schedules ADD COLUMN expires_at INTEGER`);
      // Schedules created before it by a JWT that was neither exchanged from an API key nor a
      // tenant admin's had no end. Their tokens' expiry was not kept, so they get a day from now,
      // the longest a token lives by default: time to notice and create them again bound to a key.
      storage.sql.exec(
        `UPDATE schedules SET expires_at = ?
         WHERE key_id IS NULL AND scopes NOT LIKE '%"tenant:admin"%' AND scopes NOT LIKE '%"platform:admin"%'`,
        Date.now() + LEGACY_SCHEDULE_GRACE_MS,
      );
    },
  },
  {
    version: 3,
    description: "the audit outbox: entries of this object's schedule changes owed to the tenant's log",
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

/** Frozen with step 2: the day that step gives the schedules it binds to their creator's lifetime. */
export const LEGACY_SCHEDULE_GRACE_MS = 24 * 60 * 60 * 1000;
