/**
 * A generation's shard rows as the retention sweep walks them (tenant-index/retention-sweep.ts),
 * through the shards' stubs: the expired sessions of shard `k`, and a session's children and its
 * removal wherever their own ids place them in the generation (a child is placed in its parent's).
 */
import { tenantShardStub } from "../../objects";
import { everyShard, shardFor, type ShardRef } from "../../shared/shard-layout";
import type { SessionRows } from "../tenant-index/retention-sweep";

export function shardRows(env: Cloudflare.Env, tenantId: string, ref: ShardRef): SessionRows {
  const stubOf = (shard: ShardRef) => tenantShardStub(env, tenantId, shard);
  const every = everyShard([ref]);
  return {
    expired: (cutoff, limit) => stubOf(ref).expiredSessionIds(tenantId, cutoff, limit),
    children: async (parentId) => (await Promise.all(every.map((shard) => stubOf(shard).childSessionIds(tenantId, parentId)))).flat(),
    drop: async (id, removed) => {
      const gone = await stubOf(shardFor(id, ref) ?? ref).removeSession(tenantId, id);
      if (gone) removed?.();
      return gone;
    },
  };
}
