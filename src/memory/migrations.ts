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
  {
    version: 7,
    description:
      "the current version lives in the item's row alone (item_versions keeps the earlier ones), and each item's bytes are counted into a running total",
    // The estimate is item-bytes.ts's, written here in SQL and frozen: 128 bytes a row beyond its
    // text (namespace and key twice: the row and its unique index), the index's text at 5/4 plus 100,
    // the vector's row at 640 beyond its bytes. The index still holds its text here (migration 8 drops that copy).
    up: (storage) =>
      execAll(storage.sql, [
        `ALTER TABLE items ADD COLUMN updated_by TEXT`,
        `ALTER TABLE items ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`,
        `ALTER TABLE item_versions ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`,
        `UPDATE items SET updated_by = COALESCE((SELECT v.created_by FROM item_versions v
           WHERE v.namespace = items.namespace AND v.key = items.key AND v.version = items.version), created_by)`,
        `DELETE FROM item_versions WHERE EXISTS (SELECT 1 FROM items
           WHERE items.namespace = item_versions.namespace AND items.key = item_versions.key AND items.version = item_versions.version)`,
        `UPDATE item_versions SET bytes = 128 + 2 * (octet_length(namespace) + octet_length(key)) + octet_length(value)`,
        `UPDATE items SET bytes = 128 + 2 * (octet_length(namespace) + octet_length(key)) + octet_length(value)
           + COALESCE((SELECT 100 + (5 * (octet_length(body) + octet_length(scope)) + 3) / 4 FROM items_fts WHERE items_fts.rowid = items.id), 0)
           + COALESCE((SELECT 640 + length(vector) + octet_length(model) FROM item_vectors WHERE item_vectors.item_id = items.id), 0)
           + COALESCE((SELECT SUM(v.bytes) FROM item_versions v WHERE v.namespace = items.namespace AND v.key = items.key), 0)`,
        `CREATE TABLE IF NOT EXISTS item_bytes (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL)`,
        `INSERT OR IGNORE INTO item_bytes (id, n) SELECT 1, COALESCE(SUM(bytes), 0) FROM items`,
        `CREATE TRIGGER IF NOT EXISTS items_bytes_in AFTER INSERT ON items BEGIN UPDATE item_bytes SET n = n + new.bytes WHERE id = 1; END`,
        `CREATE TRIGGER IF NOT EXISTS items_bytes_out AFTER DELETE ON items BEGIN UPDATE item_bytes SET n = n - old.bytes WHERE id = 1; END`,
        `CREATE TRIGGER IF NOT EXISTS items_bytes_changed AFTER UPDATE OF bytes ON items BEGIN UPDATE item_bytes SET n = n + new.bytes - old.bytes WHERE id = 1; END`,
      ]),
  },
  {
    version: 8,
    description: "the full-text index keeps no copy of the items' text (contentless): only what a search looks up",
    // Nothing reads the index's columns back (search ranks by rowid and BM25), and the copy was a
    // third of a large item's bytes. Built again beside the old one, as migration 3; the words view
    // is made again on the new table.
    up: (storage) =>
      execAll(storage.sql, [
        `DROP TABLE IF EXISTS items_vocab`,
        `CREATE VIRTUAL TABLE items_fts_lean USING fts5(body, scope, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`,
        `INSERT INTO items_fts_lean (rowid, body, scope) SELECT rowid, body, scope FROM items_fts`,
        `DROP TABLE items_fts`,
        `ALTER TABLE items_fts_lean RENAME TO items_fts`,
        `CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row')`,
      ]),
  },
  {
    version: 9,
    description: "items by their last write, so a search without a query reads the newest items first and stops",
    up: (storage) => execAll(storage.sql, [`CREATE INDEX IF NOT EXISTS items_by_update ON items (updated_at, id)`]),
  },
  {
    version: 10,
    description: "items by namespace and last write, so a search within a namespace prefix finds its newest items on the index alone",
    up: (storage) => execAll(storage.sql, [`CREATE INDEX IF NOT EXISTS items_by_namespace_update ON items (namespace, updated_at, id)`]),
  },
];
