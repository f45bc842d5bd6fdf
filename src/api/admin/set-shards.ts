/**
 * `PUT /v1/admin/tenants/{tenant_id}/shards`: spreads the sessions a tenant creates from now on
 * over N shard objects, so one large tenant's reports, usage and run slots are not all kept by
 * its one index. Sessions made before stay where they are; every listing covers them all.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { MAX_TOTAL_SHARDS } from "../../shared/shard-layout";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { ShardLayoutSchema, TenantShardsSchema } from "./schemas";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";

export const route = createRoute({
  method: "put",
  path: "/v1/admin/tenants/{tenant_id}/shards",
  operationId: "setTenantShards",
  summary: "Spread a tenant's sessions over shards",
  description:
    "Sessions created from now on are spread over `shards` shard objects by a hash of their id (1: the tenant's index keeps them, as before). " +
    "Each change starts a new `generation`; sessions made before stay in theirs, and listings, counts, usage, bulk cancel, retention and " +
    "deletion cover every generation. The run-slot total stays exact: shards borrow slots from the index. The same count again changes nothing. " +
    "Daily budgets stay one count: each shard sends its spending to the index, which judges every budgeted run's start. " +
    `409 when its generations would hold more than ${MAX_TOTAL_SHARDS} shards in all, since every read asks each of them. ` +
    "Audited as `tenant.shards_set`.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: {
    params: TenantIdParamsSchema,
    body: jsonBody(TenantShardsSchema, { shards: 8 }),
  },
  responses: {
    200: jsonContent(ShardLayoutSchema, "The layout new sessions are placed by."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "provision");
  const { shards } = c.req.valid("json");
  // A refusal (too many shards) is a 409, as app.ts renders every `ShardingRefused`.
  return c.json(await tenantIndexStub(c.env, tenantId).setShards(tenantId, shards, auditContext(c)), 200);
};
