/**
 * `GET /v1/admin/tenants/{tenant_id}/storage`: what each of the tenant's objects stores (rows,
 * key-value entries, bytes), read without creating anything. A deletion is proven by every
 * count reaching zero; the index lists no session once it is gone, so the caller names them.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import type { StorageFootprint } from "../../storage/object-storage";
import {
  agentStoreStub,
  memoryStoreStub,
  schedulerStub,
  sessionStub,
  tenantIndexStub,
  tenantRegistryStub,
  tenantShardStub,
  vaultStub,
} from "../../objects";
import { everyShard, type ShardLayout, shardKey } from "../../shared/shard-layout";
import { layoutsFromAudit } from "../../tenants/shards/layout-history";
import { isSessionId } from "../../session-config/ids";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { MAX_STORAGE_REPORT_SESSIONS, TenantStorageQuerySchema, TenantStorageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/admin/tenants/{tenant_id}/storage",
  operationId: "getTenantStorage",
  summary: "Count a tenant's storage",
  description:
    "Rows, key-value entries and bytes held by each of the tenant's objects (and the sessions named), to verify an erasure. " +
    "Its shards are every shard of every generation: as its index names them, or once the index is gone, as the platform's audit log recorded each change of the count (`tenant.shards_set`).",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema, query: TenantStorageQuerySchema },
  responses: {
    200: jsonContent(TenantStorageSchema, "The storage of each object."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

type ObjectStorage = z.infer<typeof TenantStorageSchema>["objects"][number];

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  const sessionIds = parseSessionIds(c.req.valid("query").session_ids);
  const env = c.env;
  const of =
    (object: ObjectStorage["object"], id: string | null) =>
    (footprint: StorageFootprint): ObjectStorage => ({ object, id, ...footprint });
  const [objects, entry] = await Promise.all([
    Promise.all([
      tenantIndexStub(env, tenantId).footprint().then(of("tenant_index", null)),
      schedulerStub(env, tenantId).footprint().then(of("scheduler", null)),
      agentStoreStub(env, tenantId).footprint().then(of("agent_store", null)),
      memoryStoreStub(env, tenantId).footprint().then(of("memory_store", null)),
      vaultStub(env, tenantId).footprint().then(of("vault", null)),
      ...sessionIds.map((id) => sessionStub(env, tenantId, id).footprint().then(of("session", id))),
      ...everyShard(await shardLayouts(env, tenantId)).map((ref) =>
        tenantShardStub(env, tenantId, ref)
          .footprint()
          .then(of("tenant_shard", shardKey(ref))),
      ),
    ]),
    tenantRegistryStub(env).entryFootprint(tenantId),
  ]);
  const rows = objects.reduce((sum, object) => sum + object.rows + object.kv_keys, 0) + entry.tenant_rows;
  return c.json(
    { tenant_id: tenantId, objects, registry: { listed: entry.tenant_rows > 0, deletion_recorded: entry.deletion_rows > 0 }, rows },
    200,
  );
};

/** The layouts its index names; once the index is gone, those the platform's audit log recorded. */
async function shardLayouts(env: Cloudflare.Env, tenantId: string): Promise<ShardLayout[]> {
  const named = await tenantIndexStub(env, tenantId).shardLayouts(tenantId);
  return named.length > 0 ? named : layoutsFromAudit(env, tenantId);
}

function parseSessionIds(text: string | undefined): string[] {
  if (!text) return [];
  const ids = [...new Set(text.split(","))];
  if (ids.length > MAX_STORAGE_REPORT_SESSIONS || !ids.every(isSessionId)) {
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: "query.session_ids", message: `at most ${MAX_STORAGE_REPORT_SESSIONS} session ids` }],
    });
  }
  return ids;
}
