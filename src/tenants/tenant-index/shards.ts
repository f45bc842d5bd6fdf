/**
 * The tenant index's shard calls: the platform admin's change of the shard count (a new
 * generation, src/shared/shard-layout.ts), the run-slot leases the shards ask for (shards/leases.ts), and
 * the shards told of a suspension.
 */
import type { AuditContext } from "../../audit/types";
import { describeError, log } from "../../log";
import { tenantShardStub } from "../../objects";
import { requireInt, requireString } from "../../shared/validate";
import { answerLease, type Lease, leaseRoom, lessees, recordedLease } from "../shards/leases";
import { everyShard, MAX_SHARDS, MAX_TOTAL_SHARDS, type ShardLayout, shardKey, type ShardRef } from "../../shared/shard-layout";
import { currentLayout, SHARD_LAYOUTS_KEY } from "../tenant-config";
import type { ShardStub } from "../shards/across";
import type { IndexHost } from "./host";

/** A change the tenant's state does not allow; the gateway answers it 409 with the message. */
export class ShardingRefused extends Error {
  override name = "ShardingRefused";
}

/** Whether `error` is a ShardingRefused, thrown here or over RPC (which keeps the name, not the class). */
export function isShardingRefused(error: unknown): error is Error {
  return error instanceof Error && error.name === "ShardingRefused";
}

/** A new generation of `shards` shards for the sessions created from now on; the same count again changes nothing. */
export function setShards(host: IndexHost, tenantId: string, shards: number, by?: AuditContext): ShardLayout {
  const count = requireInt("shards", shards, 1, MAX_SHARDS);
  const config = host.config();
  const current = currentLayout(config);
  if (current.shards === count) return current;
  const total = everyShard(config.layouts).length + (count > 1 ? count : 0);
  if (total > MAX_TOTAL_SHARDS)
    throw new ShardingRefused(
      `The tenant's generations would hold ${total} shards, more than ${MAX_TOTAL_SHARDS}: every read asks each of them.`,
    );
  const next: ShardLayout = { generation: current.generation + 1, shards: count };
  host.transaction(() => {
    host.kv.put(SHARD_LAYOUTS_KEY, [...config.layouts, next]);
    host.audit(by, {
      action: "tenant.shards_set",
      target: { type: "tenant", id: tenantId },
      details: { shards: count, generation: next.generation, previous_shards: current.shards },
    });
  });
  host.configChanged();
  return next;
}

/**
 * A shard's lease for its request `seq` (shards/leases.ts). When the room cannot give the `need`
 * part, the other shards' spare slots are taken back first, one shard at a time until it can.
 */
export async function leaseSlots(host: IndexHost, tenantId: string, shard: string, seq: number, want: number, need = want): Promise<Lease> {
  const key = requireString("shard", shard);
  const number = requireInt("seq", seq, 1);
  const wanted = requireInt("want", want, 0);
  const needed = Math.min(requireInt("need", need, 0), wanted);
  if (!host.config().suspended && !answeredAlready(host.sql, key, number) && leaseRoom(host.sql, key, maxRuns(host)) < needed)
    await reclaimSpares(host, tenantId, key, needed);
  // Read after the await: a limit lowered or a suspension made meanwhile counts.
  const { suspended } = host.config();
  const lease = host.transaction(() => answerLease(host.sql, key, number, wanted, maxRuns(host)));
  // Slots given back may be the ones the index's own queue waits for.
  await host.schedulePump();
  return { ...lease, suspended };
}

/** The slots the index may lend or use now: none while the tenant is suspended. */
function maxRuns(host: IndexHost): number {
  const { limits, suspended } = host.config();
  return suspended ? 0 : limits.max_concurrent_runs;
}

function answeredAlready(sql: SqlStorage, shard: string, seq: number): boolean {
  const row = recordedLease(sql, shard);
  return row !== null && seq <= row.seq;
}

/**
 * Asks the shards holding leases to yield their spares, recording each smaller lease, until
 * `shard` ('' for the index's own sessions) has room for `need`. Infinity (a lowered limit): every
 * shard yields, and each is recorded at no more than the new room, even below its runs.
 */
export async function reclaimSpares(host: IndexHost, tenantId: string, shard: string, need: number): Promise<void> {
  const refs = new Map(everyShard(host.config().layouts).map((ref) => [shardKey(ref), ref]));
  for (const other of lessees(host.sql, shard)) {
    const ref = refs.get(other);
    if (!ref) continue;
    try {
      const stub = tenantShardStub(host.env, tenantId, ref);
      const yielded = await stub.yieldSpare(tenantId, ref, need === Infinity);
      const recorded = host.transaction(() =>
        answerLease(host.sql, other, yielded.seq, yielded.want, host.config().limits.max_concurrent_runs),
      );
      // Less than the shard's runs hold (a limit lowered under them): the shard admits nothing more until they end.
      if (recorded.seq === yielded.seq && recorded.leased < yielded.want) await stub.leaseAnswered(tenantId, ref, recorded);
    } catch (error) {
      log("warn", "shard_spare_unyielded", { tenant_id: tenantId, shard: other, error: describeError(error) });
    }
    if (leaseRoom(host.sql, shard, host.config().limits.max_concurrent_runs) >= need) return;
  }
}

/** Tells every shard of the suspension; one not told hears it with its next lease, or asks within a minute. */
export async function tellShardsSuspended(host: IndexHost, tenantId: string, suspended: boolean): Promise<void> {
  await tellEveryShard(host, tenantId, "shard_suspension_untold", (shard, ref) => shard.tenantSuspended(tenantId, ref, suspended));
}

/** Sends `tell` to every shard of every generation at once; a shard not reached is logged as `untold`, never fails the caller. */
export async function tellEveryShard(
  host: IndexHost,
  tenantId: string,
  untold: string,
  tell: (shard: ShardStub, ref: ShardRef) => Promise<void>,
): Promise<void> {
  await Promise.all(
    everyShard(host.config().layouts).map((ref) =>
      tell(tenantShardStub(host.env, tenantId, ref), ref).catch((error: unknown) =>
        log("warn", untold, { tenant_id: tenantId, error: describeError(error) }),
      ),
    ),
  );
}
