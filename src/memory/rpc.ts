/**
 * What a tenant's memory store answers over RPC: the interface its namespace is typed by
 * (src/env.ts), called by the gateway's routes and by sessions' memory tools. A tenant that never
 * stored an item is answered as empty, and such a lookup writes nothing.
 */
import type { StorageFootprint } from "../storage/object-storage";
import type { AuditContext } from "../audit/types";
import type { MemoryItem, MemoryResult, MemoryVersion, NamespaceListInput, NamespacePage, PutItem, ScoredItem, SearchInput } from "./types";

export interface MemoryStoreRpc {
  /** The tenant was deleted: everything this object stored goes; harmless when done already. */
  purge(tenantId: string): Promise<void>;
  /** What this object's storage holds; reads only. */
  footprint(): Promise<StorageFootprint>;
  /**
   * Writes the item's next version; `limit_reached` for a new item past the tenant's
   * `max_memory_items`, or for a write that would take its memory past `max_memory_bytes`.
   */
  put(tenantId: string, input: PutItem): Promise<MemoryResult<MemoryItem>>;
  /** The live item (its time to live restarted when it asks for that). */
  get(tenantId: string, namespace: string[], key: string, now: number): Promise<MemoryResult<MemoryItem>>;
  remove(tenantId: string, namespace: string[], key: string, now: number, by?: AuditContext): Promise<MemoryResult<null>>;
  versions(tenantId: string, namespace: string[], key: string, now: number): Promise<MemoryResult<MemoryVersion[]>>;
  /** `scan_exceeded` when the page lies past the rows a search reads (`MAX_SEARCH_SCAN`). */
  search(tenantId: string, input: SearchInput): Promise<MemoryResult<ScoredItem[]>>;
  namespaces(tenantId: string, input: NamespaceListInput): Promise<NamespacePage>;
}

/** The binding whose stubs offer this interface (src/env.ts). */
declare module "../env" {
  interface ObjectRpcs {
    MEMORY_STORE: MemoryStoreRpc;
  }
}
