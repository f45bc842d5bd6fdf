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
    description: "a running count of items kept by triggers, so a new item's put no longer counts the table",
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE TABLE IF NOT EXISTS item_count (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`,
        `INSERT OR IGNORE INTO item_count (id, n) SELECT 1, COUNT(*) FROM items`,
        `CREATE TRIGGER IF NOT EXISTS items_counted_in AFTER INSERT ON items BEGIN UPDATE item_count SET n = n + 1 WHERE id = 1; END`,
        `CREATE TRIGGER IF NOT EXISTS items_counted_out AFTER DELETE ON items BEGIN UPDATE item_count SET n = n - 1 WHERE id = 1; END`,
      ]),
  },
  {
    version: 3,
    description:
      "the full-text index gets a scope column, each item's namespace prefixes as tokens, so a search within a namespace reads only its items",
    // FTS5 tables take no new column: the index is built again beside the old one and renamed.
    // The scope is `scopeText` of store.ts written in SQL (a namespace has at most 4 segments):
    // d1…d4 are the ends of its first 1…4 segments in `namespace || '.'`, each at the last one
    // found once the segments run out, so a shorter namespace repeats its last prefix.
    up: (storage) =>
      execAll(storage.sql, [
        `CREATE VIRTUAL TABLE items_fts_scoped USING fts5(body, scope, tokenize = 'unicode61 remove_diacritics 2')`,
        `INSERT INTO items_fts_scoped (rowid, body, scope)
         SELECT id, body, hex(substr(n, 1, d1 - 1)) || ' ' || hex(substr(n, 1, d2 - 1)) || ' ' || hex(substr(n, 1, d3 - 1)) || ' ' || hex(substr(n, 1, d4 - 1))
         FROM (SELECT id, body, n, d1, d2, d3, d3 + instr(substr(n, d3 + 1), '.') AS d4
           FROM (SELECT id, body, n, d1, d2, d2 + instr(substr(n, d2 + 1), '.') AS d3
             FROM (SELECT id, body, n, d1, d1 + instr(substr(n, d1 + 1), '.') AS d2
               FROM (SELECT items.id AS id, items_fts.body AS body, items.namespace || '.' AS n, instr(items.namespace || '.', '.') AS d1
                 FROM items_fts JOIN items ON items.id = items_fts.rowid))))`,
        `DROP TABLE items_fts`,
        `ALTER TABLE items_fts_scoped RENAME TO items_fts`,
      ]),
  },
  {
    version: 4,
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
  {
    version: 5,
    description: "a view of the full-text index's words and how many items hold each, so a search can leave out words most items hold",
    up: (storage) => execAll(storage.sql, [`CREATE VIRTUAL TABLE IF NOT EXISTS items_vocab USING fts5vocab(items_fts, 'row')`]),
  },
  {
    version: 6,
    description: "the audit outbox: entries of items a person deleted, owed to the tenant's log",
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
