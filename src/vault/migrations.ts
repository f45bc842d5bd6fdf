/**
 * Storage migrations of a tenant's vault, oldest first (runner: src/storage/migrations.ts;
 * layout: storage.md). Append a step for every change; never edit one. Times are integer
 * milliseconds since the epoch.
 */
import { execAll, type Migration } from "../storage/migrations";

export const VAULT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "credentials, their secrets sealed under a named key, and the audit outbox",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS credentials (
          owner TEXT NOT NULL,
          name TEXT NOT NULL,
          type TEXT NOT NULL,
          header TEXT NOT NULL,
          allowed_origins TEXT NOT NULL,
          expires_at INTEGER,
          token_url TEXT,
          client_id TEXT,
          refreshable INTEGER NOT NULL,
          refresh_failed INTEGER NOT NULL DEFAULT 0,
          key_id TEXT NOT NULL,
          sealed BLOB NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          PRIMARY KEY (owner, name)
        )`,
        `CREATE INDEX IF NOT EXISTS credentials_by_key ON credentials (key_id)`,
        `CREATE TABLE IF NOT EXISTS audit_outbox (
          id TEXT PRIMARY KEY,
          created_at INTEGER NOT NULL,
          entry TEXT NOT NULL
        )`,
      ]),
  },
];
