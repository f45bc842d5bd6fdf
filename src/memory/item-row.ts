/**
 * What the store and the search share of the `items` table: the row, the condition that keeps
 * expired rows unread, the count of those the sweep has not reached, and the scope tokens of the
 * full-text index; and the item as the API shows it.
 */
import { toHex } from "../shared/hex";
import { toIso } from "../shared/validate";
import { joinNamespace, MAX_NAMESPACE_SEGMENTS } from "../session-config/memory-namespace";
import type { MemoryItem } from "./types";

export interface ItemRow extends Record<string, SqlStorageValue> {
  id: number;
  namespace: string;
  key: string;
  value: string;
  version: number;
  created_by: string;
  created_at: number;
  updated_at: number;
  /** Who wrote the current version (migration 7). */
  updated_by: string;
  /** What the item takes in storage, its earlier versions included (item-bytes.ts). */
  bytes: number;
  expires_at: number | null;
  ttl_ms: number | null;
  refresh_ttl: number;
}

/** The condition every read of items carries: an expired item is never read. */
export const LIVE = "(expires_at IS NULL OR expires_at > ?)";

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

/** Rows past their expiry that the sweep has not deleted yet. */
export function expiredUnswept(sql: SqlStorage, now: number): number {
  return sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM items WHERE expires_at IS NOT NULL AND expires_at <= ?`, now).one().n;
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
export function scopeToken(prefix: string[]): string {
  return toHex(new TextEncoder().encode(joinNamespace(prefix)));
}
