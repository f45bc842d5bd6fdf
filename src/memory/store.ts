/**
 * The memory store's tables (storage.md): items, their last versions, and the full-text index.
 * An expired item is never read: every query asks for `expires_at` after now, and the sweep
 * deletes such rows later. Functions of the SQL handle; the object wraps changes in transactions.
 */
import { decodeKeyCursor, encodeKeyCursor } from "../shared/cursor";
import { toHex } from "../shared/hex";
import { toIso } from "../shared/validate";
import { fromBlob, similarity, toBlob } from "./embeddings";
import { joinNamespace, MAX_NAMESPACE_SEGMENTS } from "../session-config/memory-namespace";
import type { MemoryItem, MemoryVersion, NamespacePage, ScoredItem, SearchInput } from "./types";

/** Versions kept per item, the current one included. */
export const KEPT_VERSIONS = 10;
/** Words of a query that reach the index; the rest are dropped. */
const MAX_QUERY_TERMS = 32;
/** Expired rows deleted per sweep. */
export const SWEEP_BATCH = 500;

interface ItemRow extends Record<string, SqlStorageValue> {
  id: number;
  namespace: string;
  key: string;
  value: string;
  version: number;
  created_by: string;
  created_at: number;
  updated_at: number;
  expires_at: number | null;
  ttl_ms: number | null;
  refresh_ttl: number;
}

const LIVE = "(expires_at IS NULL OR expires_at > ?)";

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

/** Rows past their expiry that the sweep has not deleted yet. */
export function expiredUnswept(sql: SqlStorage, now: number): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?`, now).one().n;
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
}

/** Writes the item's next version (the first when `previous` is null) and keeps the last `KEPT_VERSIONS`. */
export function writeItem(sql: SqlStorage, item: WrittenItem, previous: ItemRow | null): void {
  const version = (previous?.version ?? 0) + 1;
  const text = JSON.stringify(item.value);
  const expiresAt = item.ttlMs === null ? null : item.now + item.ttlMs;
  let id: number;
  if (previous) {
    id = previous.id;
    sql.exec(
      `UPDATE items SET value = ?, version = ?, updated_at = ?, expires_at = ?, ttl_ms = ?, refresh_ttl = ? WHERE id = ?`,
      text,
      version,
      item.now,
      expiresAt,
      item.ttlMs,
      item.refreshTtl ? 1 : 0,
      id,
    );
    sql.exec(`DELETE FROM items_fts WHERE rowid = ?`, id);
  } else {
    id = sql
      .exec<{ id: number }>(
        `INSERT INTO items (namespace, key, value, version, created_by, created_at, updated_at, expires_at, ttl_ms, refresh_ttl)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        item.namespace,
        item.key,
        text,
        version,
        item.createdBy,
        item.now,
        item.now,
        expiresAt,
        item.ttlMs,
        item.refreshTtl ? 1 : 0,
      )
      .one().id;
  }
  sql.exec(`INSERT INTO items_fts (rowid, body, scope) VALUES (?, ?, ?)`, id, searchText(item.key, item.value), scopeText(item.namespace));
  sql.exec(
    `INSERT INTO item_versions (namespace, key, version, value, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
    item.namespace,
    item.key,
    version,
    text,
    item.createdBy,
    item.now,
  );
  sql.exec(`DELETE FROM item_versions WHERE namespace = ? AND key = ? AND version <= ?`, item.namespace, item.key, version - KEPT_VERSIONS);
}

/** A read of an item that asks for it restarts its time to live. */
export function refreshExpiry(sql: SqlStorage, row: ItemRow, now: number): ItemRow {
  if (row.refresh_ttl !== 1 || row.ttl_ms === null) return row;
  const expiresAt = now + row.ttl_ms;
  sql.exec(`UPDATE items SET expires_at = ? WHERE id = ?`, expiresAt, row.id);
  return { ...row, expires_at: expiresAt };
}

export function versionsOf(sql: SqlStorage, namespace: string, key: string): MemoryVersion[] {
  return sql
    .exec<{ version: number; value: string; created_by: string; created_at: number }>(
      `SELECT version, value, created_by, created_at FROM item_versions WHERE namespace = ? AND key = ? ORDER BY version DESC LIMIT ?`,
      namespace,
      key,
      KEPT_VERSIONS,
    )
    .toArray()
    .map((row) => ({
      namespace: namespace.split("."),
      key,
      version: row.version,
      value: JSON.parse(row.value) as Record<string, unknown>,
      created_by: row.created_by,
      created_at: toIso(row.created_at),
    }));
}

/**
 * Items within the prefixes that match the filter, ranked by BM25 over their text when a query
 * is given (best first; `score` higher is better), else newest first with a null score. With
 * `near` (the query's vector), the BM25 ranking is fused with a ranking by meaning.
 */
export function search(sql: SqlStorage, input: SearchInput, near: VectorQuery | null = null): ScoredItem[] {
  const terms = input.query === null ? [] : distinctiveTerms(sql, queryTerms(input.query));
  if (input.prefixes.length === 0 || (input.query !== null && terms.length === 0)) return [];
  const scoped = !input.prefixes.some((prefix) => prefix.length === 0);
  const filtered = Object.keys(input.filter).length > 0;
  if (near !== null && terms.length > 0) return hybridSearch(sql, input, terms, scoped, near);
  let rows: (ItemRow & { rank?: number })[];
  if (terms.length === 0) {
    const where = itemConditions(input, scoped);
    rows = sql
      .exec<ItemRow>(
        `SELECT items.* FROM items WHERE ${where.sql} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`,
        ...where.args,
        input.limit,
        input.offset,
      )
      .toArray();
  } else if (!filtered) {
    // The index decides alone: it finds the prefixes' items by their scope tokens, and only the
    // page's rows are read, not the row of every item holding a query word. Expired rows the
    // sweep has not reached yet (counted on their own index, usually none) may be among the best:
    // the index is asked for that many more, and they are left out here.
    const expired = expiredUnswept(sql, input.now);
    rows = sql
      .exec<ItemRow & { rank: number }>(
        `WITH ranked AS (SELECT rowid AS id, bm25(items_fts, 1.0, 0.0) AS rank FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?)
         SELECT items.*, ranked.rank FROM ranked JOIN items ON items.id = ranked.id WHERE ${LIVE.replaceAll("expires_at", "items.expires_at")} ORDER BY ranked.rank`,
        matchExpression(terms, scoped ? input.prefixes : null),
        input.offset + input.limit + expired,
        input.now,
      )
      .toArray()
      .slice(input.offset, input.offset + input.limit);
  } else {
    // A filter reads each match's value; the scope still keeps a namespace's search to its items.
    const where = itemConditions(input, scoped);
    rows = sql
      .exec<ItemRow & { rank: number }>(
        `SELECT items.*, bm25(items_fts, 1.0, 0.0) AS rank FROM items_fts JOIN items ON items.id = items_fts.rowid
         WHERE items_fts MATCH ? AND ${where.sql} ORDER BY rank LIMIT ? OFFSET ?`,
        matchExpression(terms, scoped ? input.prefixes : null),
        ...where.args,
        input.limit,
        input.offset,
      )
      .toArray();
  }
  // bm25() is lower for a better match; the API's score is higher for one.
  return rows.map((row) => ({ ...toItem(row), score: row.rank === undefined ? null : Math.round(-row.rank * 1e6) / 1e6 }));
}

/**
 * The BM25 ranking and the ranking by meaning, fused by their ranks (reciprocal rank fusion), so
 * neither scale has to be compared with the other. Both lists are cut at the same depth whatever
 * the page, so the pages of one query never overlap or skip. The vectors compared are those of
 * the most recently updated items within the prefixes and filter.
 */
function hybridSearch(sql: SqlStorage, input: SearchInput, terms: string[], scoped: boolean, near: VectorQuery): ScoredItem[] {
  const where = itemConditions(input, scoped);
  const byWords = sql
    .exec<{ id: number }>(
      `SELECT items.id AS id FROM items_fts JOIN items ON items.id = items_fts.rowid
       WHERE items_fts MATCH ? AND ${where.sql} ORDER BY bm25(items_fts, 1.0, 0.0) LIMIT ?`,
      matchExpression(terms, scoped ? input.prefixes : null),
      ...where.args,
      FUSION_DEPTH,
    )
    .toArray();
  const byMeaning = sql
    .exec<{ id: number; vector: ArrayBuffer }>(
      `SELECT items.id AS id, item_vectors.vector AS vector FROM items JOIN item_vectors ON item_vectors.item_id = items.id
       WHERE item_vectors.model = ? AND ${where.sql} ORDER BY items.updated_at DESC LIMIT ?`,
      near.model,
      ...where.args,
      vectorScanLimit(near.values.length),
    )
    .toArray()
    .map((row) => ({ id: row.id, similarity: similarity(near.values, fromBlob(row.vector)) }))
    .filter((hit) => hit.similarity >= near.minSimilarity)
    .sort((a, b) => b.similarity - a.similarity || b.id - a.id)
    .slice(0, FUSION_DEPTH);
  const fused = new Map<number, number>();
  const add = (id: number, rank: number) => fused.set(id, (fused.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
  byWords.forEach((row, rank) => add(row.id, rank));
  byMeaning.forEach((hit, rank) => add(hit.id, rank));
  return [...fused.entries()]
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(input.offset, input.offset + input.limit)
    .map(([id, score]) => ({
      ...toItem(sql.exec<ItemRow>(`SELECT * FROM items WHERE id = ?`, id).one()),
      score: Math.round(score * 1e6) / 1e6,
    }));
}

/** A query's vector, and what an item's must be to count (the same model, similar enough). */
export interface VectorQuery {
  model: string;
  values: Float32Array;
  minSimilarity: number;
}

/** The most recently updated items whose vectors one search compares; words reach every item. */
export const MAX_VECTOR_SCAN = 2_000;
/** The vector bytes one search reads at most: 2,000 vectors of 1,024 dimensions, fewer of larger ones. */
export const MAX_VECTOR_SCAN_BYTES = 8 * 1024 * 1024;

export function vectorScanLimit(dimensions: number): number {
  return Math.max(1, Math.min(MAX_VECTOR_SCAN, Math.floor(MAX_VECTOR_SCAN_BYTES / (4 * dimensions))));
}

/** How deep each ranking goes into a hybrid search: its pages reach this many of each. */
export const FUSION_DEPTH = 500;
/** Reciprocal rank fusion's constant: the usual 60, which keeps one list's top from dominating. */
const RRF_K = 60;

/** The live items within the prefixes (unless `scoped` is false: all of them) that match the filter, as SQL on `items`. */
function itemConditions(input: SearchInput, scoped: boolean): { sql: string; args: SqlStorageValue[] } {
  const where: string[] = [LIVE.replaceAll("expires_at", "items.expires_at")];
  const args: SqlStorageValue[] = [input.now];
  if (scoped) {
    const within: string[] = [];
    for (const segments of input.prefixes) {
      const prefix = joinNamespace(segments);
      // Below `prefix` is exactly the text from "prefix." up to "prefix/" ('/' follows '.').
      within.push("items.namespace = ? OR (items.namespace >= ? AND items.namespace < ?)");
      args.push(prefix, `${prefix}.`, `${prefix}/`);
    }
    where.push(`(${within.join(" OR ")})`);
  }
  for (const [field, wanted] of Object.entries(input.filter)) {
    const path = `$."${field}"`;
    if (wanted === null) where.push(`json_type(items.value, '${path}') = 'null'`);
    else if (typeof wanted === "boolean") where.push(`json_type(items.value, '${path}') = '${wanted ? "true" : "false"}'`);
    else {
      where.push(
        `json_type(items.value, '${path}') IN (${typeof wanted === "string" ? "'text'" : "'integer', 'real'"}) AND json_extract(items.value, '${path}') = ?`,
      );
      args.push(wanted);
    }
  }
  return { sql: where.join(" AND "), args };
}

/**
 * The query's words, looked up in `body` only, and when `prefixes` is given, items whose `scope`
 * holds one of them: a search within a user's namespace reads that user's matches, not every
 * item holding a query word.
 */
function matchExpression(terms: string[], prefixes: string[][] | null): string {
  const words = `body : (${terms.map(phrase).join(" OR ")})`;
  return prefixes === null ? words : `scope : (${prefixes.map((prefix) => phrase(scopeToken(prefix))).join(" OR ")}) AND ${words}`;
}

/** One token as an FTS5 phrase: quoted, so no operator of its syntax reaches the index. */
function phrase(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/**
 * The words worth looking up: a word more than half of the items hold says almost nothing of which
 * item is meant (BM25 weighs it near zero) yet makes the index score every one of them, so it is
 * left out when the query has a rarer word. A query of common words only keeps them all.
 */
export function distinctiveTerms(sql: SqlStorage, terms: string[]): string[] {
  if (terms.length < 2) return terms;
  const items = sql.exec<{ n: number }>(`SELECT n FROM item_count`).one().n;
  const held = new Map(
    sql
      .exec<{ term: string; doc: number }>(`SELECT term, doc FROM items_vocab WHERE term IN (${terms.map(() => "?").join(", ")})`, ...terms)
      .toArray()
      .map((row) => [row.term, row.doc]),
  );
  // A word no item holds finds nothing either way; it must not stand in for the words that do.
  const rarer = terms.filter((term) => {
    const holding = held.get(term) ?? 0;
    return holding > 0 && holding * 2 <= items;
  });
  return rarer.length > 0 ? rarer : terms;
}

/** The words of a query, each searched as a phrase of one token: no operator of FTS5's syntax reaches it. */
export function queryTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
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

export function toItem(row: ItemRow): MemoryItem {
  return {
    namespace: row.namespace.split("."),
    key: row.key,
    value: JSON.parse(row.value) as Record<string, unknown>,
    version: row.version,
    created_by: row.created_by,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    expires_at: row.expires_at === null ? null : toIso(row.expires_at),
  };
}

/**
 * The index's `scope` column of an item in `namespace` (joined): one token for each of its
 * prefixes, the whole namespace repeated up to `MAX_NAMESPACE_SEGMENTS`, so that every item's
 * indexed length grows by the same four tokens and none ranks differently for its depth (BM25
 * divides by the length of all columns; the column's own weight is 0). Migration 3 writes the
 * same tokens in SQL for the items it found.
 */
export function scopeText(namespace: string): string {
  const segments = namespace.split(".");
  const tokens = segments.map((_, i) => scopeToken(segments.slice(0, i + 1)));
  while (tokens.length < MAX_NAMESPACE_SEGMENTS) tokens.push(tokens[tokens.length - 1]!);
  return tokens.join(" ");
}

/** A namespace prefix as one token of letters and digits: its joined text in hex. */
function scopeToken(prefix: string[]): string {
  return toHex(new TextEncoder().encode(joinNamespace(prefix)));
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
