/**
 * The platform's Worker as the benchmarks run it: the production entry, unchanged, behind four
 * routes of their own that no deployed Worker has (it exists only in the benchmarks' config),
 * with every Durable Object class exported metered (`cost-meter.ts`: requests, active time and
 * storage rows, as Cloudflare bills them):
 *
 *   GET  /__bench/agents/{tenant}/{session}   reads a session straight from its session object, with no
 *                                             gateway in front, to measure what the gateway adds
 *   POST /__bench/index/{tenant}/sessions     `{ count, created_by }`: index rows for sessions
 *                                             with no session object behind them, to fill a tenant's list
 *                                             fast (a real create costs ~17 ms of CPU here)
 *   POST /__bench/memory/{tenant}/items       `{ items: [{ namespace, key, value }], created_by }`: the
 *                                             items written by the tenant's memory store's own `put`,
 *                                             all in one call of the object (see `MemoryStore` below)
 *   GET  /__bench/cost                        what the meter counted so far (`MeterSnapshot`)
 */
import { memoryStoreStub, sessionStub, tenantIndexStub } from "../../src/objects";
import { EMPTY_USAGE, type SessionResult, type Session } from "../../src/session-config/types";
import { newSessionId } from "../../src/session-config/ids";
import type { Env } from "../../src/env";
import * as production from "../../src/index";
import { MemoryStore as PlatformMemoryStore } from "../../src/memory/memory-store";
import type { PutItem } from "../../src/memory/types";
import { countWorkerRequest, meterClass, meterResponse } from "./cost-meter";

const platform = production.default;

// Every Durable Object class the production entry exports, metered under its own name.
export const AgentStore = meterClass(production.AgentStore, "AgentStore");
export const SessionObject = meterClass(production.SessionObject, "SessionObject");
export const Scheduler = meterClass(production.Scheduler, "Scheduler");
export const TenantIndex = meterClass(production.TenantIndex, "TenantIndex");
export const TenantShard = meterClass(production.TenantShard, "TenantShard");
export const TenantRegistry = meterClass(production.TenantRegistry, "TenantRegistry");
export const Vault = meterClass(production.Vault, "Vault");

const PREFIX = "/__bench/";
/** Reports in flight at once while filling; the index takes them one at a time anyway. */
const FILL_CONCURRENCY = 32;
const MAX_FILL = 10_000;
/** Items per call of the memory fill route: one call of the store, a few seconds at 100,000 items. */
const MAX_MEMORY_FILL = 10_000;
/** The fill is not bounded by the tenant's `max_memory_items`: the suite measures past the default. */
const FILL_MAX_ITEMS = 10_000_000;
/** Nor by its `max_memory_bytes`: the highest a tenant can be given (5 GiB). */
const FILL_MAX_BYTES = 5 * 1024 * 1024 * 1024;

/** A class the production entry exports that is not metered here would be missed by the bill: refuse to start. */
const METERED = new Set([
  "AgentStore",
  "MemoryStore",
  "SessionObject",
  "Scheduler",
  "TenantIndex",
  "TenantShard",
  "TenantRegistry",
  "Vault",
]);
const unmetered = Object.entries(production).filter(([name, value]) => typeof value === "function" && !METERED.has(name));
if (unmetered.length > 0)
  throw new Error(`bench build: meter the Durable Object classes ${unmetered.map(([name]) => name).join(", ")} in bench/direct/worker.ts`);

export default {
  async fetch(request, env, ctx) {
    // A substring test first, so the gateway's own requests pay next to nothing for these routes.
    if (!request.url.includes(PREFIX)) {
      countWorkerRequest();
      return platform.fetch(request, env, ctx);
    }
    const [kind, tenantId, rest] = new URL(request.url).pathname.slice(PREFIX.length).split("/").map(decodeURIComponent);
    if (kind === "cost" && request.method === "GET") return meterResponse();
    if (kind === "agents" && tenantId && rest && request.method === "GET") return readSession(env, tenantId, rest);
    if (kind === "index" && tenantId && rest === "sessions" && request.method === "POST")
      return fillIndex(env, tenantId, await request.json());
    if (kind === "memory" && tenantId && rest === "items" && request.method === "POST")
      return fillMemory(env, tenantId, await request.json());
    return new Response("not found", { status: 404 });
  },
} satisfies ExportedHandler<Env>;

async function readSession(env: Env, tenantId: string, sessionId: string): Promise<Response> {
  const result = (await sessionStub(env, tenantId, sessionId).get()) as SessionResult<Session>;
  return result.ok ? Response.json(result.value) : Response.json(result, { status: 404 });
}

/** Reports `count` idle sessions to the tenant's index, as each new session object's first report would. */
async function fillIndex(env: Env, tenantId: string, body: { count?: unknown; created_by?: unknown }): Promise<Response> {
  const count = Number(body.count);
  if (!Number.isInteger(count) || count < 1 || count > MAX_FILL || typeof body.created_by !== "string") {
    return new Response(`need { count: 1..${MAX_FILL}, created_by }`, { status: 400 });
  }
  const index = tenantIndexStub(env, tenantId);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const now = new Date().toISOString();
      const usage = EMPTY_USAGE;
      const summary = {
        id: newSessionId(),
        created_by: body.created_by as string,
        status: "idle" as const,
        stop_reason: null,
        usage,
        created_at: now,
        updated_at: now,
        revision: 1,
      };
      await index.reportSession(tenantId, summary);
    }
  };
  await Promise.all(Array.from({ length: FILL_CONCURRENCY }, worker));
  return Response.json({ created: count }, { status: 201 });
}

/**
 * The platform's memory store with one method more, `putMany`: the production `put`, run for each
 * item within one call of the object. Called over RPC item by item (32 in flight), `put` fills at
 * ~600 items a second, each call paying the object's round trip and its own storage work (a
 * 100,000-item store would take three minutes); within one call the items are written back to
 * back. The production class keeps its RPC surface: only this build's entry exports the
 * subclass, under the name its binding uses.
 */
class BenchMemoryStore extends PlatformMemoryStore {
  async putMany(tenantId: string, inputs: PutItem[]): Promise<number> {
    for (const input of inputs) {
      const result = await this.put(tenantId, input);
      if (!result.ok) throw new Error(`put refused: ${result.reason}`);
    }
    return inputs.length;
  }
}

export const MemoryStore = meterClass(BenchMemoryStore, "MemoryStore");

interface FillItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
}

async function fillMemory(env: Env, tenantId: string, body: { items?: unknown; created_by?: unknown }): Promise<Response> {
  const items = body.items as FillItem[];
  if (!Array.isArray(items) || items.length < 1 || items.length > MAX_MEMORY_FILL || typeof body.created_by !== "string") {
    return new Response(`need { items: 1..${MAX_MEMORY_FILL} of { namespace, key, value }, created_by }`, { status: 400 });
  }
  const stub = memoryStoreStub(env, tenantId) as unknown as DurableObjectStub<BenchMemoryStore>;
  const now = Date.now();
  // The store checks every item as its `put` always does.
  const inputs = items.map((item): PutItem => ({
    namespace: item.namespace,
    key: item.key,
    value: item.value,
    ttlSeconds: null,
    refreshTtl: false,
    createdBy: body.created_by as string,
    maxItems: FILL_MAX_ITEMS,
    maxBytes: FILL_MAX_BYTES,
    now,
  }));
  return Response.json({ written: await stub.putMany(tenantId, inputs) }, { status: 201 });
}
