/**
 * Storage migrations of a tenant's memory store, oldest first (runner: src/storage/migrations.ts;
 * layout: storage.md). Append a step for every change; never edit one. Times are integer
 * milliseconds since the epoch.
 */
import { execAll, type Migration } from "../storage/migrations";

export const MEMORY_STORE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "memory items, their last versions, and a full-text index of their text",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS items (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          namespace TEXT NOT NULL,
          key TEXT NOT NULL,
          value TEXT NOT NULL,
          version INTEGER NOT NULL,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          updated_at INTEGER NOT NULL,
          expires_at INTEGER,
          ttl_ms INTEGER,
          refresh_ttl INTEGER NOT NULL DEFAULT 0,
          UNIQUE (namespace, key)
        )`,
        `CREATE INDEX IF NOT EXISTS items_by_expiry ON items (expires_at) WHERE expires_at IS NOT NULL`,
        `CREATE TABLE IF NOT EXISTS item_versions (
          namespace TEXT NOT NULL,
          key TEXT NOT NULL,
          version INTEGER NOT NULL,
          value TEXT NOT NULL,
          created_by TEXT NOT NULL,
          created_at INTEGER NOT NULL,
          PRIMARY KEY (namespace, key, version)
        )`,
        // The text of each item (its key and every string in its value), by the item's rowid.
        `CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(body, tokenize = 'unicode61 remove_diacritics 2')`,
      ]),
  },
  {
    version: 2,
    description: "each item's vector for hybrid search, with the embeddings model that made it",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS item_vectors (
          item_id INTEGER PRIMARY KEY,
          model TEXT NOT NULL,
          vector BLOB NOT NULL
        )`,
      ]),
  },
];
