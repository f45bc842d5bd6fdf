/**
 * Tenant deletion, driven by the tenant index's alarm so that it survives crashes and restarts:
 * the state lives in the index's key-value storage (written with the suspension, and with the
 * alarm that drives it), each pass is bounded, and every step is idempotent. Order: the tenant's
 * scheduler (no schedule fires again), agent store, memory store and vault, then its sessions in
 * batches, then the registry's entry, and last the index itself, which holds the state: a crash
 * anywhere leaves the state and its alarm, and the next pass goes on from there.
 */
import { agentStoreStub, memoryStoreStub, schedulerStub, sessionStub, tenantShardStub, vaultStub } from "../objects";
import { everyShard, type ShardLayout } from "../shared/shard-layout";
import { readLayouts } from "./tenant-config";
import { toIso } from "../shared/validate";
import type { DeletionRecord } from "./registry-store";
import { dropSessionRows, sessionCount, sessionIdBatch } from "./sessions-store";

const DELETION_KEY = "deletion";
/** Session objects purged per pass, side by side: a pass stays well inside an alarm's time. */
export const DELETION_SESSION_BATCH = 25;
/** A pass that failed is tried again after this long (the runtime's own alarm retries give up after a few). */
export const DELETION_RETRY_MS = 5_000;

export interface DeletionState {
  started_at: number;
  /** The scheduler, agent store, memory store and vault are emptied (sessions and the index follow). */
  objects_purged: boolean;
}

export interface DeletionProgress {
  status: "deleting" | "deleted";
  started_at: string;
  finished_at: string | null;
  sessions_left: number;
}

export function readDeletion(kv: SyncKvStorage): DeletionState | null {
  return kv.get<DeletionState>(DELETION_KEY) ?? null;
}

/** Idempotent: a deletion asked for again keeps its state and its first start. */
export function startDeletion(kv: SyncKvStorage, now: number): DeletionState {
  const state = readDeletion(kv) ?? { started_at: now, objects_purged: false };
  kv.put(DELETION_KEY, state);
  return state;
}

export function deletingProgress(state: DeletionState, sessionsLeft: number): DeletionProgress {
  return { status: "deleting", started_at: toIso(state.started_at), finished_at: null, sessions_left: sessionsLeft };
}

/** The registry's record of a deletion, as progress: `deleted` once it finished. */
export function recordedProgress(record: DeletionRecord): DeletionProgress {
  return {
    status: record.finished_at === null ? "deleting" : "deleted",
    started_at: toIso(record.started_at),
    finished_at: record.finished_at === null ? null : toIso(record.finished_at),
    sessions_left: 0,
  };
}

export function sessionsLeft(sql: SqlStorage): number {
  return sessionCount(sql);
}

/**
 * One bounded pass: the tenant's other objects once, then a batch of sessions, each session
 * object's storage deleted before its row. `done`: no session is left, and the index may go.
 */
export async function deletionPass(
  env: Cloudflare.Env,
  kv: SyncKvStorage,
  sql: SqlStorage,
  tenantId: string,
  state: DeletionState,
): Promise<"more" | "done"> {
  if (!state.objects_purged) {
    await Promise.all([
      schedulerStub(env, tenantId).purge(tenantId),
      agentStoreStub(env, tenantId).purge(tenantId),
      memoryStoreStub(env, tenantId).purge(tenantId),
      vaultStub(env, tenantId).purge(tenantId),
    ]);
    kv.put(DELETION_KEY, { ...state, objects_purged: true });
  }
  const ids = sessionIdBatch(sql, DELETION_SESSION_BATCH);
  if (ids.length > 0) {
    await Promise.all(ids.map((id) => sessionStub(env, tenantId, id).purge()));
    dropSessionRows(sql, ids);
    return "more";
  }
  return shardsPass(env, tenantId, readLayouts(kv));
}

/** The shards' sessions the same way, a batch of one shard per pass; once none is left, every shard's storage. */
async function shardsPass(env: Cloudflare.Env, tenantId: string, layouts: readonly ShardLayout[]): Promise<"more" | "done"> {
  const shards = everyShard(layouts);
  for (const ref of shards) {
    const shard = tenantShardStub(env, tenantId, ref);
    const ids = await shard.sessionIdBatch(tenantId, DELETION_SESSION_BATCH);
    if (ids.length === 0) continue;
    await Promise.all(ids.map((id) => sessionStub(env, tenantId, id).purge()));
    await shard.dropSessionRows(tenantId, ids);
    return "more";
  }
  await Promise.all(shards.map((ref) => tenantShardStub(env, tenantId, ref).purge(tenantId)));
  return "done";
}
