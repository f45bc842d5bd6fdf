/** Memory: a tenant's long-term items, in namespaces, searched with BM25 and kept in versions. */
import type { Page } from "../session-config/types";

export interface MemoryItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  version: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
}

export interface MemoryVersion {
  namespace: string[];
  key: string;
  version: number;
  value: Record<string, unknown>;
  created_by: string;
  created_at: string;
}

export interface PutItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  ttlSeconds: number | null;
  refreshTtl: boolean;
  createdBy: string;
  /** The tenant's `max_memory_items`. */
  maxItems: number;
  /** The tenant's `max_memory_bytes`. */
  maxBytes: number;
  /** An end user's writer: its reach, and the items it may keep there (`MAX_END_USER_MEMORY_ITEMS`). */
  within?: { prefix: string[]; max: number } | undefined;
  now: number;
}

export interface SearchInput {
  /**
   * Items at or below any of these prefixes (at most `MAX_SEARCH_PREFIXES`); an empty prefix is
   * every namespace of the tenant. The API searches one; a session's tool searches its grant's.
   */
  prefixes: string[][];
  query: string | null;
  filter: Record<string, string | number | boolean | null>;
  limit: number;
  offset: number;
  now: number;
}

export type ScoredItem = MemoryItem & { score: number | null };

export interface NamespaceListInput {
  prefix: string[];
  maxDepth: number | null;
  limit: number;
  cursor: string | null;
  now: number;
}

/**
 * `limit_reached` with `of: "end_user"`: the writer's own reach holds its `within.max` items; with
 * `of: "bytes"`: the write would take the tenant's memory past `max_memory_bytes` (`used` before it,
 * `needed` by the item as written).
 */
export type MemoryFailure =
  | { reason: "item_not_found" }
  | { reason: "limit_reached"; max: number; of?: "end_user" }
  | { reason: "limit_reached"; max: number; of: "bytes"; used: number; needed: number }
  /** The search's page lies past the `max` rows a search reads, found by its filter or its offset. */
  | { reason: "scan_exceeded"; max: number; by: "filter" | "offset" };
export type MemoryResult<T> = { ok: true; value: T } | ({ ok: false } & MemoryFailure);

export type NamespacePage = Page<string[]>;
