/**
 * The memory store's tables (storage.md): items, their last versions, and the full-text index.
 * An expired item is never read: every query asks for `expires_at` after now, and the sweep
 * deletes such rows later. Functions of the SQL handle; the object wraps changes in transactions.
 * Searching them is search.ts.
 */
import { decodeKeyCursor, encodeKeyCursor } from "../shared/cursor";
import { toIso } from "../shared/validate";
import { toBlob } from "./embeddings";
import { indexBytes, rowBytes, vectorBytes } from "./item-bytes";
import { joinNamespace } from "../session-config/memory-namespace";
import { expiredUnswept, type ItemRow, LIVE, scopeText } from "./item-row";
import type { MemoryVersion, NamespacePage } from "./types";

/** Versions kept per item, the current one (the item's row) included; `item_versions` holds the others. */
export const KEPT_VERSIONS = 10;
/** Expired rows deleted per sweep. */
export const SWEEP_BATCH = 500;

export function liveItem(sql: SqlStorage, namespace: string, key: string, now: number): ItemRow | null {
  return sql.exec<ItemRow>(`SELECT * FROM items WHERE namespace = ? AND key = ? AND ${LIVE}`, namespace, key, now).toArray()[0] ?? null;
}

/**
 * Live items: the running count kept by triggers (migration 2), less the expired rows the sweep
 * has not reached yet (found on the expiry index, usually none), so no put counts the table.
 */
export function countItems(sql: SqlStorage, now: number): number {
  const all = sql.exec<{ n: number }>(`SELECT n FROM item_count`).one().n;
  return all - expiredUnswept(sql, now);
}

/** Live items at or below the (joined) namespace `prefix`: a range of the `(namespace, key)` index, as a search scopes one. */
export function countItemsWithin(sql: SqlStorage, prefix: string, now: number): number {
  const where = `(namespace = ? OR (namespace >= ? AND namespace < ?)) AND (expires_at IS NULL OR expires_at > ?)`;
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM items WHERE ${where}`, prefix, `${prefix}.`, `${prefix}/`, now).one().n;
}

/** The bytes the tenant's items take (item-bytes.ts), kept by triggers on `items` (migration 7). */
export function totalBytes(sql: SqlStorage): number {
  return sql.exec<{ n: number }>(`SELECT n FROM item_bytes`).one().n;
}

/** Removes an item, its versions and its text; true when there was a row. */
export function deleteItem(sql: SqlStorage, namespace: string, key: string): boolean {
  const row = sql.exec<{ id: number }>(`SELECT id FROM items WHERE namespace = ? AND key = ?`, namespace, key).toArray()[0];
  if (!row) return false;
  sql.exec(`DELETE FROM items WHERE id = ?`, row.id);
  sql.exec(`DELETE FROM items_fts WHERE rowid = ?`, row.id);
  sql.exec(`DELETE FROM item_vectors WHERE item_id = ?`, row.id);
  sql.exec(`DELETE FROM item_versions WHERE namespace = ? AND key = ?`, namespace, key);
  return true;
}

/** The item's vector for its current value, or none (an old one would describe an old value). */
export function writeVector(sql: SqlStorage, itemId: number, vector: { model: string; values: Float32Array } | null): void {
  if (vector === null) sql.exec(`DELETE FROM item_vectors WHERE item_id = ?`, itemId);
  else
    sql.exec(`INSERT OR REPLACE INTO item_vectors (item_id, model, vector) VALUES (?, ?, ?)`, itemId, vector.model, toBlob(vector.values));
}

export interface WrittenItem {
  namespace: string;
  key: string;
  value: Record<string, unknown>;
  createdBy: string;
  now: number;
  ttlMs: number | null;
  refreshTtl: boolean;
  /** The value's vector; none (or absent) leaves the item without one. */
  vector?: { model: string; values: Float32Array } | null;
}

/**
 * Writes the item's next version (the first when `previous` is null): the row holds the current
 * one, `item_versions` the `KEPT_VERSIONS - 1` before it. Sets the row's `bytes` and returns them.
 */
export function writeItem(sql: SqlStorage, item: WrittenItem, previous: ItemRow | null): number {
  const version = (previous?.version ?? 0) + 1;
  const text = JSON.stringify(item.value);
  const body = searchText(item.key, item.value);
  const scope = scopeText(item.namespace);
  const vector = item.vector ?? null;
  const expiresAt = item.ttlMs === null ? null : item.now + item.ttlMs;
  const own = rowBytes(item.namespace, item.key, text) + indexBytes(body, scope) + vectorBytes(vector);
  let id: number;
  let bytes = own;
  if (previous) {
    id = previous.id;
    const kept = rowBytes(item.namespace, item.key, previous.value);
    // OR REPLACE: code from before migration 7 (a rollback) also wrote the current version here.
    sql.exec(
      `INSERT OR REPLACE INTO item_versions (namespace, key, version, value, created_by, created_at, bytes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      item.namespace,
      item.key,
      previous.version,
      previous.value,
      previous.updated_by ?? previous.created_by,
      previous.updated_at,
      kept,
    );
    sql.exec(
      `DELETE FROM item_versions WHERE namespace = ? AND key = ? AND version <= ?`,
      item.namespace,
      item.key,
      version - KEPT_VERSIONS,
    );
    bytes += sql
      .exec<{ n: number }>(
        `SELECT COALESCE(SUM(bytes), 0) AS n FROM item_versions WHERE namespace = ? AND key = ?`,
        item.namespace,
        item.key,
      )
      .one().n;
    sql.exec(
      `UPDATE items SET value = ?, version = ?, updated_at = ?, updated_by = ?, expires_at = ?, ttl_ms = ?, refresh_ttl = ?, bytes = ? WHERE id = ?`,
      text,
      version,
      item.now,
      item.createdBy,
      expiresAt,
      item.ttlMs,
      item.refreshTtl ? 1 : 0,
      bytes,
      id,
    );
    sql.exec(`DELETE FROM items_fts WHERE rowid = ?`, id);
  } else {
    id = sql
      .exec<{ id: number }>(
        `INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at, updated_by, expires_at, ttl_ms, refresh_ttl, bytes)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        item.namespace,
        item.key,
        text,
        version,
        item.createdBy,
        item.now,
        item.now,
        item.createdBy,
        expiresAt,
        item.ttlMs,
        item.refreshTtl ? 1 : 0,
        bytes,
      )
      .one().id;
  }
  sql.exec(`INSERT INTO items_fts (rowid, body, scope) VALUES (?, ?, ?)`, id, body, scope);
  writeVector(sql, id, vector);
  return bytes;
}

/** A read of an item that asks for it restarts its time to live. */
export function refreshExpiry(sql: SqlStorage, row: ItemRow, now: number): ItemRow {
  if (row.refresh_ttl !== 1 || row.ttl_ms === null) return row;
  const expiresAt = now + row.ttl_ms;
  sql.exec(`UPDATE items SET expires_at = ? WHERE id = ?`, expiresAt, row.id);
  return { ...row, expires_at: expiresAt };
}

/** The item's versions, newest first: the current one (its row) and the earlier ones kept. */
export function versionsOf(sql: SqlStorage, current: ItemRow): MemoryVersion[] {
  const earlier = sql
    .exec<{ version: number; value: string; created_by: string; created_at: number }>(
      // `version < ?`: code from before migration 7 (a rollback) also wrote the current version here.
      `SELECT version, value, created_by, created_at FROM item_versions WHERE namespace = ? AND key = ? AND version < ? ORDER BY version DESC LIMIT ?`,
      current.namespace,
      current.key,
      current.version,
      KEPT_VERSIONS - 1,
    )
    .toArray();
  const rows = [
    {
      version: current.version,
      value: current.value,
      created_by: current.updated_by ?? current.created_by,
      created_at: current.updated_at,
    },
    ...earlier,
  ];
  return rows.map((row) => ({
    namespace: current.namespace.split("."),
    key: current.key,
    version: row.version,
    value: JSON.parse(row.value) as Record<string, unknown>,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
  }));
}

/** The namespaces that hold live items within `prefix`, cut to `maxDepth` segments, in order, paged. */
export function namespaces(
  sql: SqlStorage,
  prefix: string[],
  maxDepth: number | null,
  limit: number,
  cursor: string | null,
  now: number,
): NamespacePage {
  const args: SqlStorageValue[] = [now];
  let where = LIVE;
  if (prefix.length > 0) {
    const joined = joinNamespace(prefix);
    where += " AND (namespace = ? OR (namespace >= ? AND namespace < ?))";
    args.push(joined, `${joined}.`, `${joined}/`);
  }
  const after = cursor === null ? null : decodeKeyCursor("memory_namespaces", cursor);
  if (cursor !== null && after === null) throw new RangeError("invalid cursor");
  const seen = new Set<string>();
  for (const row of sql.exec<{ namespace: string }>(`SELECT DISTINCT namespace FROM items WHERE ${where}`, ...args)) {
    const segments = row.namespace.split(".");
    seen.add(joinNamespace(maxDepth === null ? segments : segments.slice(0, Math.max(maxDepth, prefix.length))));
  }
  const ordered = [...seen].sort(compareNamespaces).filter((namespace) => after === null || compareNamespaces(namespace, after) > 0);
  const page = ordered.slice(0, limit);
  return {
    data: page.map((namespace) => namespace.split(".")),
    next_cursor: ordered.length > limit ? encodeKeyCursor("memory_namespaces", page[page.length - 1]!) : null,
  };
}

/** Segment by segment, so a namespace sorts before those below it. */
function compareNamespaces(a: string, b: string): number {
  const left = a.split(".");
  const right = b.split(".");
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    if (left[i] !== right[i]) return left[i]! < right[i]! ? -1 : 1;
  }
  return left.length - right.length;
}

export function firstExpiry(sql: SqlStorage): number | null {
  return sql.exec<{ at: number | null }>(`SELECT MIN(expires_at) AS at FROM items WHERE expires_at IS NOT NULL`).one().at ?? null;
}

/** Deletes up to `SWEEP_BATCH` expired items; the count deleted. */
export function sweepExpired(sql: SqlStorage, now: number): number {
  const expired = sql
    .exec<{ namespace: string; key: string }>(
      `SELECT namespace, key FROM items WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?`,
      now,
      SWEEP_BATCH,
    )
    .toArray();
  for (const row of expired) deleteItem(sql, row.namespace, row.key);
  return expired.length;
}

/** What the index reads of an item, and what is embedded: its key and every string in its value (object keys included). */
export function searchText(key: string, value: unknown): string {
  const parts: string[] = [key];
  const walk = (node: unknown): void => {
    if (typeof node === "string") parts.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === "object") {
      for (const [name, item] of Object.entries(node)) {
        parts.push(name);
        walk(item);
      }
    }
  };
  walk(value);
  return parts.join(" ");
}
