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
