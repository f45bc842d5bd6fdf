/**
 * The MemoryStore Durable Object, one per tenant: its memory items (storage.md). An object of its
 * own: memory is read and written by sessions' tools in the middle of runs, traffic the tenant
 * index (on every request's path) should not carry. One object holds 10 GB; `max_memory_bytes`
 * (1 GiB by default, 5 GiB at most) keeps a tenant's items well inside it, whatever their count.
 */
import { purgeStorage, storageFootprint, type StorageFootprint } from "../storage/object-storage";
import { DurableObject } from "cloudflare:workers";
import { AlarmClock } from "../storage/alarm-clock";
import { migrate } from "../storage/migrations";
import { TenantBinding } from "../tenants/tenant-binding";
import { optionalCursor, requireInt, requireNow, requirePageLimit, requireString } from "../shared/validate";
import { loadConfig } from "../config";
import { log } from "../log";
import { embed, EmbeddingError } from "./embeddings";
import { MEMORY_STORE_MIGRATIONS } from "./migrations";
import { joinNamespace, namespaceProblem, MAX_NAMESPACE_SEGMENTS } from "../session-config/memory-namespace";
import type { MemoryStoreRpc } from "./rpc";
import * as store from "./store";
import { toItem } from "./item-row";
import { MAX_SEARCH_SCAN, ScanExceeded, search, type VectorQuery } from "./search";
import type { MemoryItem, MemoryResult, MemoryVersion, NamespaceListInput, NamespacePage, PutItem, ScoredItem, SearchInput } from "./types";
import {
  FILTER_FIELD_PATTERN,
  MAX_KEY_CHARS,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_PREFIXES,
  MAX_SEARCH_OFFSET,
  MAX_TTL_SECONDS,
  MAX_VALUE_CHARS,
  MIN_TTL_SECONDS,
} from "./bounds";
import { parseAuditContext } from "../audit/entry";
import { type AuditOutbox, tenantAuditOutbox } from "../audit/outbox";
import type { AuditContext } from "../audit/types";
import { DEFAULT_MAX_MEMORY_BYTES } from "../limits";

const NOT_FOUND = { ok: false, reason: "item_not_found" } as const;

/** Thrown inside a put's transaction to undo a write past `max_memory_bytes`. */
class OverBytes extends Error {
  constructor(
    readonly used: number,
    readonly needed: number,
    readonly max: number,
  ) {
    super("max_memory_bytes");
  }
}

export class MemoryStore extends DurableObject<Cloudflare.Env> implements MemoryStoreRpc {
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  #migrated = false;
  /** Entries owed to the tenant's log; the alarm hands over what a call could not. */
  readonly #audit: AuditOutbox;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#binding = new TenantBinding(ctx.storage.kv, async () => undefined);
    this.#audit = tenantAuditOutbox(ctx.storage, env, () => this.#binding.tenantId ?? null, this.#alarms);
    if (this.#binding.bound) this.#migrate();
  }
  /**
   * The tenant was deleted: every byte this object stored goes, and it forgets its tenant, as an
   * object never used. Harmless when done already (src/lifecycle/tenant-deletion.ts).
   */
  async purge(tenantId: string): Promise<void> {
    if (!this.#peek(tenantId)) return;
    await purgeStorage(this.ctx.storage);
    this.#binding = new TenantBinding(this.ctx.storage.kv, async () => undefined);
    this.#migrated = false;
  }

  /** What this object's storage holds; reads only. */
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  async put(tenantId: string, input: PutItem): Promise<MemoryResult<MemoryItem>> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.#migrate();
    const namespace = requireNamespace(input.namespace);
    const key = requireKey(input.key);
    const value = requireValue(input.value);
    const now = requireNow(input.now);
    const maxItems = requireInt("maxItems", input.maxItems, 0);
    const within =
      input.within === undefined
        ? undefined
        : { prefix: requireNamespace(input.within.prefix), max: requireInt("within.max", input.within.max, 0) };
    const ttlMs = input.ttlSeconds === null ? null : requireInt("ttlSeconds", input.ttlSeconds, MIN_TTL_SECONDS, MAX_TTL_SECONDS) * 1000;
    const createdBy = requireString("createdBy", input.createdBy);
    // Asked before the write, outside its transaction: the write never waits inside one.
    const vector = await this.#embed(store.searchText(key, value), tenantId);
    // A caller from before max_memory_bytes (a Worker not yet updated mid-deploy) sends none: the default holds.
    const maxBytes = input.maxBytes === undefined ? DEFAULT_MAX_MEMORY_BYTES : requireInt("maxBytes", input.maxBytes, 0);
    let result: MemoryResult<MemoryItem>;
    try {
      result = this.ctx.storage.transactionSync((): MemoryResult<MemoryItem> => {
        let previous = store.liveItem(this.#sql, namespace, key, now);
        if (!previous) {
          // An expired row the sweep has not reached yet is gone for good: the new item starts at version 1.
          store.deleteItem(this.#sql, namespace, key);
          if (store.countItems(this.#sql, now) >= maxItems) return { ok: false, reason: "limit_reached", max: maxItems };
          if (within && store.countItemsWithin(this.#sql, within.prefix, now) >= within.max)
            return { ok: false, reason: "limit_reached", max: within.max, of: "end_user" };
        }
        const item = { namespace, key, value, createdBy, now, ttlMs, refreshTtl: input.refreshTtl === true, vector };
        const bytes = store.writeItem(this.#sql, item, previous);
        // Counted as written (item-bytes.ts), so the check is exact; past the limit the write is
        // undone unless the item, its kept versions included, takes no more than before: the
        // tenant's total is then no higher than it was (a smaller value alone is not enough).
        const total = store.totalBytes(this.#sql);
        if (total > maxBytes && bytes > (previous?.bytes ?? 0))
          throw new OverBytes(total - bytes + (previous?.bytes ?? 0), bytes, maxBytes);
        return { ok: true, value: toItem(store.liveItem(this.#sql, namespace, key, now)!) };
      });
    } catch (error) {
      if (!(error instanceof OverBytes)) throw error;
      return { ok: false, reason: "limit_reached", of: "bytes", max: error.max, used: error.used, needed: error.needed };
    }
    if (ttlMs !== null) await this.#syncAlarm();
    return result;
  }

  async get(tenantId: string, namespace: string[], key: string, now: number): Promise<MemoryResult<MemoryItem>> {
    const checked = { namespace: requireNamespace(namespace), key: requireKey(key), now: requireNow(now) };
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const row = store.liveItem(this.#sql, checked.namespace, checked.key, checked.now);
    if (!row) return NOT_FOUND;
    return { ok: true, value: toItem(store.refreshExpiry(this.#sql, row, checked.now)) };
  }

  /**
   * `by`: the person who deleted the item, whose deletion the audit log records; absent for a
   * session's memory tool (a model's own bookkeeping, not an administrative change).
   */
  async remove(tenantId: string, namespace: string[], key: string, now: number, by?: AuditContext): Promise<MemoryResult<null>> {
    const checked = { namespace: requireNamespace(namespace), key: requireKey(key), now: requireNow(now) };
    const context = parseAuditContext(by);
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const found = this.ctx.storage.transactionSync(() => {
      if (!store.liveItem(this.#sql, checked.namespace, checked.key, checked.now)) return false;
      const deleted = store.deleteItem(this.#sql, checked.namespace, checked.key);
      const target = { type: "memory_item", id: `${checked.namespace}/${checked.key}` };
      if (deleted && context)
        this.#audit.record(
          tenantId,
          context,
          { action: "memory.deleted", target, details: { namespace: checked.namespace, key: checked.key } },
          checked.now,
        );
      return deleted;
    });
    if (found && context) await this.#audit.flush();
    return found ? { ok: true, value: null } : NOT_FOUND;
  }

  async versions(tenantId: string, namespace: string[], key: string, now: number): Promise<MemoryResult<MemoryVersion[]>> {
    const checked = { namespace: requireNamespace(namespace), key: requireKey(key), now: requireNow(now) };
    if (!this.#peek(tenantId)) return NOT_FOUND;
    const current = store.liveItem(this.#sql, checked.namespace, checked.key, checked.now);
    if (!current) return NOT_FOUND;
    return { ok: true, value: store.versionsOf(this.#sql, current) };
  }

  async search(tenantId: string, input: SearchInput): Promise<MemoryResult<ScoredItem[]>> {
    const checked: SearchInput = {
      prefixes: requirePrefixes(input.prefixes),
      query: input.query === null ? null : requireString("query", input.query, MAX_QUERY_CHARS),
      filter: requireFilter(input.filter),
      limit: requireInt("limit", input.limit, 1, MAX_SEARCH_LIMIT),
      offset: requireInt("offset", input.offset, 0, MAX_SEARCH_OFFSET),
      now: requireNow(input.now),
    };
    if (!this.#peek(tenantId)) return { ok: true, value: [] };
    const near = checked.query === null ? null : await this.#embed(checked.query, tenantId);
    try {
      return { ok: true, value: search(this.#sql, checked, near) };
    } catch (error) {
      if (!(error instanceof ScanExceeded)) throw error;
      return { ok: false, reason: "scan_exceeded", max: MAX_SEARCH_SCAN, by: error.by };
    }
  }

  async namespaces(tenantId: string, input: NamespaceListInput): Promise<NamespacePage> {
    const prefix = requirePrefix(input.prefix);
    const maxDepth = input.maxDepth === null ? null : requireInt("maxDepth", input.maxDepth, 1, MAX_NAMESPACE_SEGMENTS);
    const limit = requirePageLimit(input.limit);
    const cursor = optionalCursor(input.cursor);
    const now = requireNow(input.now);
    if (!this.#peek(tenantId)) return { data: [], next_cursor: null };
    return store.namespaces(this.#sql, prefix, maxDepth, limit, cursor, now);
  }

  override async alarm(): Promise<void> {
    if (!this.#migrated) return;
    await this.#audit.flush();
    const swept = store.sweepExpired(this.#sql, Date.now());
    // A full batch may have left more: go on at once; else wait for the next expiry.
    const next = swept >= store.SWEEP_BATCH ? Date.now() + 1 : store.firstExpiry(this.#sql);
    const retry = this.#audit.retryAt(Date.now());
    await this.#alarms.sync(next === null ? retry : retry === null ? next : Math.min(next, retry));
  }

  // ---- private helpers (not reachable over RPC) ------------------------------------------

  /**
   * The text's vector, with the model that made it and the similarity a match needs, when the
   * platform has an embeddings model; null without one, or when it fails (logged).
   */
  async #embed(text: string, tenantId: string): Promise<VectorQuery | null> {
    const config = loadConfig(this.env).embeddings;
    if (!config) return null;
    try {
      const [values] = await embed(config, [text]);
      return { model: config.model, values: values!, minSimilarity: config.minSimilarity };
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      log("warn", "memory_embedding_failed", { tenant_id: tenantId, error: error.message });
      return null;
    }
  }

  async #syncAlarm(): Promise<void> {
    await this.#alarms.sync(store.firstExpiry(this.#sql));
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  #peek(tenantId: string): boolean {
    return this.#binding.peek(tenantId) && this.#migrated;
  }

  #migrate(): void {
    migrate(this.ctx.storage, MEMORY_STORE_MIGRATIONS);
    this.#migrated = true;
  }
}

// The gateway and the memory tools check every argument first (src/memory/bounds.ts); these
// keep the tables' invariants and the SQL this object builds safe whatever a caller sends.

function requireNamespace(value: unknown): string {
  if (namespaceProblem(value) !== null) throw new TypeError("namespace is not a namespace");
  return joinNamespace(value as string[]);
}

function requirePrefix(value: unknown): string[] {
  if (namespaceProblem(value, 0) !== null) throw new TypeError("prefix is not a namespace prefix");
  return value as string[];
}

function requirePrefixes(value: unknown): string[][] {
  if (!Array.isArray(value) || value.length > MAX_SEARCH_PREFIXES) throw new TypeError("prefixes is not a list of namespace prefixes");
  return value.map(requirePrefix);
}

function requireKey(value: unknown): string {
  return requireString("key", value, MAX_KEY_CHARS);
}

function requireValue(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError("value must be an object");
  if (JSON.stringify(value).length > MAX_VALUE_CHARS) throw new RangeError("value is too large");
  return value as Record<string, unknown>;
}

function requireFilter(value: unknown): SearchInput["filter"] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError("filter must be an object");
  for (const [field, wanted] of Object.entries(value)) {
    // The field is written into a JSON path of the query: only these characters ever reach it.
    if (!FILTER_FIELD_PATTERN.test(field)) throw new TypeError("filter field is not a field name");
    if (wanted !== null && !["string", "number", "boolean"].includes(typeof wanted)) throw new TypeError("filter values must be scalars");
  }
  return value as SearchInput["filter"];
}
