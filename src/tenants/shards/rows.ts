/** A shard's rows as the retention sweep walks them (tenant-index/retention-sweep.ts), through its stub. */
import { tenantShardStub } from "../../objects";
import type { ShardRef } from "../../shared/shard-layout";
import type { SessionRows } from "../tenant-index/retention-sweep";

export function shardRows(env: Cloudflare.Env, tenantId: string, ref: ShardRef): SessionRows {
  const shard = tenantShardStub(env, tenantId, ref);
  return {
    expired: (cutoff, limit) => shard.expiredSessionIds(tenantId, cutoff, limit),
    children: (parentId) => shard.childSessionIds(tenantId, parentId),
    drop: (id) => shard.removeSession(tenantId, id),
  };
}
