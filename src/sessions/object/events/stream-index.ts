/**
 * Tells the tenant index which of the session's streams closed, so they stop counting against
 * `max_streams_per_tenant`. Not awaited by the close: a lost call leaves a row that the index's
 * recount of live streams (or the row's deadline) removes.
 */
import { log } from "../../../log";
import { tenantIndexStub } from "../../../objects";
import { MAX_FORGOTTEN_STREAMS } from "../../../tenants/event-streams";
import type { ForgetStreams, StreamTag } from "./streams";

export function forgetInIndex(ctx: DurableObjectState, env: Cloudflare.Env): ForgetStreams {
  return (tags: StreamTag[]) => {
    const byTenant = new Map<string, string[]>();
    for (const tag of tags) byTenant.set(tag.tenantId, [...(byTenant.get(tag.tenantId) ?? []), tag.streamId]);
    for (const [tenantId, streamIds] of byTenant) {
      // A session may hold more streams than one call may name (a suspension closes them all).
      for (let start = 0; start < streamIds.length; start += MAX_FORGOTTEN_STREAMS) {
        const work = tenantIndexStub(env, tenantId)
          .forgetEventStreams(tenantId, streamIds.slice(start, start + MAX_FORGOTTEN_STREAMS))
          .catch((error: unknown) => log("warn", "forget_streams_failed", { tenant_id: tenantId, error: String(error) }));
        ctx.waitUntil(work);
      }
    }
  };
}
