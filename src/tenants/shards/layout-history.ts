/**
 * A tenant's shard layouts once its index is gone: read back from the platform's audit log, which
 * outlives the tenant and records each change of the count with its generation
 * (`tenant.shards_set`). The storage report of a deleted tenant names its shards by them, so an
 * erasure can be proven for every object the tenant had.
 */
import type { AuditEntry } from "../../audit/types";
import { tenantRegistryStub } from "../../objects";
import type { Page } from "../../session-config/types";
import { isShardLayout, type ShardLayout } from "../../shared/shard-layout";

/** The most pages of entries read (100 each): a tenant's count is changed by hand, rarely. */
const MAX_PAGES = 20;

export async function layoutsFromAudit(env: Cloudflare.Env, tenantId: string): Promise<ShardLayout[]> {
  const registry = tenantRegistryStub(env);
  const layouts: ShardLayout[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const found: Page<AuditEntry> = await registry.listAuditLog({ tenant_id: tenantId, action: "tenant.shards_set", limit: 100, cursor });
    for (const entry of found.data) {
      const layout = { generation: entry.details?.["generation"], shards: entry.details?.["shards"] };
      if (isShardLayout(layout)) layouts.push(layout);
    }
    if (!found.next_cursor) break;
    cursor = found.next_cursor;
  }
  return layouts.sort((a, b) => a.generation - b.generation);
}
