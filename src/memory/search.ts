/**
 * Searching the memory store's items: BM25 over the full-text index, optionally fused with a
 * ranking by meaning (the items' vectors), within namespace prefixes and a filter. Reads only.
 */
import { fromBlob, similarity } from "./embeddings";
import { expiredUnswept, type ItemRow, LIVE, scopeToken, toItem } from "./item-row";
import { joinNamespace } from "../session-config/memory-namespace";
import type { ScoredItem, SearchInput } from "./types";

/** Words of a query that reach the index; the rest are dropped. */
const MAX_QUERY_TERMS = 32;

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
  if (terms.length === 0) rows = newest(sql, input, scoped);
  else if (!filtered) {
    // The index decides alone: it finds the prefixes' items by their scope tokens, and only the
    // page's rows are read, not the row of every item holding a query word. Expired rows the
    // sweep has not reached yet (counted on their own index, usually none) may be among the best:
    // the index is asked for that many more, and they are left out here. A page past the scan
    // reads `MAX_SEARCH_SCAN` rows at most, and answers only when the matches end within them.
    const expired = expiredUnswept(sql, input.now);
    const wanted = input.offset + input.limit;
    const reach = Math.min(wanted, MAX_SEARCH_SCAN + 1);
    const live = sql
      .exec<ItemRow & { rank: number }>(
        `WITH ranked AS (SELECT rowid AS id, bm25(items_fts, 1.0, 0.0) AS rank FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?)
         SELECT items.*, ranked.rank FROM ranked JOIN items ON items.id = ranked.id WHERE ${LIVE.replaceAll("expires_at", "items.expires_at")} ORDER BY ranked.rank`,
        matchExpression(terms, scoped ? input.prefixes : null),
        reach + expired,
        input.now,
      )
      .toArray();
    if (wanted > MAX_SEARCH_SCAN && live.length > MAX_SEARCH_SCAN) throw new ScanExceeded("offset");
    rows = live.slice(input.offset, wanted);
  } else {
    // A filter reads the values of the query's best `MAX_SEARCH_SCAN` matches at most (ranked in
    // the index alone): the first matches of the filter among them are the first of all, so the
    // page is exact when it fills; when it does not and more matches are left, it is refused.
    const where = itemConditions(input, scoped);
    rows = sql
      .exec<ItemRow & { rank: number }>(
        `WITH ranked AS (SELECT rowid AS id, bm25(items_fts, 1.0, 0.0) AS rank FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?)
         SELECT items.*, ranked.rank AS rank FROM ranked JOIN items ON items.id = ranked.id WHERE ${where.sql} ORDER BY ranked.rank LIMIT ? OFFSET ?`,
        matchExpression(terms, scoped ? input.prefixes : null),
        MAX_SEARCH_SCAN,
        ...where.args,
        input.limit,
        input.offset,
      )
      .toArray();
    if (rows.length < input.limit && matchesBeyond(sql, matchExpression(terms, scoped ? input.prefixes : null)))
      throw new ScanExceeded("filter");
  }
  // bm25() is lower for a better match; the API's score is higher for one.
  return rows.map((row) => ({ ...toItem(row), score: row.rank === undefined ? null : Math.round(-row.rank * 1e6) / 1e6 }));
}

/**
 * Rows a search reads at most to apply a filter or reach an offset: each may hold 64 KiB of JSON,
 * about 0.2 ms to read and parse, so a search stays near 0.2 s whatever the store holds.
 */
export const MAX_SEARCH_SCAN = 1_000;

/** A search whose page lies past the rows it may read (`MAX_SEARCH_SCAN`): the caller narrows it. */
export class ScanExceeded extends Error {
  constructor(readonly by: "filter" | "offset") {
    super(`the search would read more than ${MAX_SEARCH_SCAN} items`);
  }
}

/** Whether the query matches more items than a scan reads: the index is asked for one more, by rowid only. */
function matchesBeyond(sql: SqlStorage, match: string): boolean {
  const n = sql
    .exec<{ n: number }>(
      `SELECT COUNT(*) AS n FROM (SELECT rowid FROM items_fts WHERE items_fts MATCH ? LIMIT ?)`,
      match,
      MAX_SEARCH_SCAN + 1,
    )
    .one().n;
  return n > MAX_SEARCH_SCAN;
}

/**
 * Without a query, newest first, reading the newest `MAX_SEARCH_SCAN` items at most: the store's
 * on the update index (migration 9), or the prefixes' found on the namespace index (migration 10)
 * without reading a value. Their first matches of a filter are the newest of all: a page they do
 * not fill while more items lie past them is refused, as is an offset past them.
 */
function newest(sql: SqlStorage, input: SearchInput, scoped: boolean): ItemRow[] {
  const where = itemConditions(input, scoped);
  const filtered = Object.keys(input.filter).length > 0;
  const wanted = input.offset + input.limit;
  if (!filtered && wanted > MAX_SEARCH_SCAN) {
    if (newestIds(sql, scoped ? input.prefixes : null, MAX_SEARCH_SCAN + 1).length > MAX_SEARCH_SCAN) throw new ScanExceeded("offset");
  }
  // Expired rows the sweep has not reached yet may be among the newest: that many more.
  const scan = MAX_SEARCH_SCAN + expiredUnswept(sql, input.now);
  let rows: ItemRow[];
  let beyond: boolean;
  if (!scoped) {
    rows = sql
      .exec<ItemRow>(
        `SELECT items.* FROM (SELECT * FROM items ORDER BY updated_at DESC, id DESC LIMIT ?) AS items WHERE ${where.sql}
         ORDER BY items.updated_at DESC, items.id DESC LIMIT ? OFFSET ?`,
        scan,
        ...where.args,
        input.limit,
        input.offset,
      )
      .toArray();
    beyond = sql.exec<{ n: number }>(`SELECT n FROM item_count`).one().n > scan;
  } else {
    const ids = newestIds(sql, input.prefixes, scan + 1);
    beyond = ids.length > scan;
    rows = rowsOf(sql, ids.slice(0, scan), where, wanted).slice(input.offset, wanted);
  }
  if (rows.length < input.limit && beyond) throw new ScanExceeded(filtered ? "filter" : "offset");
  return rows;
}

/** The rows of `ids` that meet `where`, in the order of `ids`, looked up a few at a time until `wanted` are found. */
function rowsOf(sql: SqlStorage, ids: number[], where: { sql: string; args: SqlStorageValue[] }, wanted: number): ItemRow[] {
  const rows: ItemRow[] = [];
  const chunk = Math.min(Math.max(wanted, 20), 200);
  for (let at = 0; at < ids.length && rows.length < wanted; at += chunk) {
    const some = ids.slice(at, at + chunk);
    const found = new Map(
      sql
        .exec<ItemRow>(
          `SELECT items.* FROM json_each(?) AS ids CROSS JOIN items ON items.id = ids.value WHERE ${where.sql}`,
          JSON.stringify(some),
          ...where.args,
        )
        .toArray()
        .map((row) => [row.id, row]),
    );
    for (const id of some) {
      const row = found.get(id);
      if (row) rows.push(row);
    }
  }
  return rows;
}

/**
 * The ids of the `n` most recently updated items within the prefixes (all items when null), newest
 * first: from `(namespace, updated_at, id)` (migration 10) per prefix, or `(updated_at, id)`
 * (migration 9), reading index entries only, never a value.
 */
function newestIds(sql: SqlStorage, prefixes: string[][] | null, n: number): number[] {
  const order = `ORDER BY updated_at DESC, id DESC LIMIT ?`;
  if (prefixes === null)
    return sql
      .exec<{ id: number }>(`SELECT id FROM items INDEXED BY items_by_update ${order}`, n)
      .toArray()
      .map((row) => row.id);
  const found = new Map<number, number>();
  for (const segments of prefixes) {
    const prefix = joinNamespace(segments);
    // The index's range from "prefix" to "prefix/" holds the prefix and all below it ("prefix." …).
    const rows = sql.exec<{ id: number; updated_at: number }>(
      `SELECT id, updated_at FROM items INDEXED BY items_by_namespace_update
       WHERE namespace >= ? AND namespace < ? AND (namespace = ? OR namespace >= ?) ${order}`,
      prefix,
      `${prefix}/`,
      prefix,
      `${prefix}.`,
      n,
    );
    for (const row of rows) found.set(row.id, row.updated_at);
  }
  return [...found.entries()]
    .sort((a, b) => b[1] - a[1] || b[0] - a[0])
    .slice(0, n)
    .map(([id]) => id);
}

/**
 * The BM25 ranking and the ranking by meaning, fused by their ranks (reciprocal rank fusion), so
 * neither scale has to be compared with the other. Both lists are cut at the same depth whatever
 * the page, so the pages of one query never overlap or skip. The vectors compared are those of
 * the prefixes' most recently updated items (`vectorScanLimit`) that match the filter.
 */
function hybridSearch(sql: SqlStorage, input: SearchInput, terms: string[], scoped: boolean, near: VectorQuery): ScoredItem[] {
  const where = itemConditions(input, scoped);
  const byWords = sql
    .exec<{ id: number }>(
      `WITH ranked AS (SELECT rowid AS id, bm25(items_fts, 1.0, 0.0) AS rank FROM items_fts WHERE items_fts MATCH ? ORDER BY rank LIMIT ?)
       SELECT items.id AS id FROM ranked JOIN items ON items.id = ranked.id WHERE ${where.sql} ORDER BY ranked.rank LIMIT ?`,
      matchExpression(terms, scoped ? input.prefixes : null),
      MAX_SEARCH_SCAN,
      ...where.args,
      FUSION_DEPTH,
    )
    .toArray();
  // The prefixes' newest items, found on the index alone (migration 10), each joined to its vector:
  // no more rows than the vectors compared, however many items the store or the prefixes hold.
  const compared = vectorScanLimit(near.values.length);
  const ids = newestIds(sql, scoped ? input.prefixes : null, compared);
  const byMeaning = sql
    .exec<{ id: number; vector: ArrayBuffer }>(
      `SELECT items.id AS id, item_vectors.vector AS vector FROM json_each(?) AS ids CROSS JOIN items ON items.id = ids.value
       JOIN item_vectors ON item_vectors.item_id = items.id WHERE item_vectors.model = ? AND ${where.sql}`,
      JSON.stringify(ids),
      near.model,
      ...where.args,
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
