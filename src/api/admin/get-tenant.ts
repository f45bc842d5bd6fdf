/** `GET /v1/admin/tenants/{tenant_id}`: a tenant's config, limits, usage, session counts and deletion. */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { recordedProgress } from "../../tenants/tenant-deletion";
import { tenantIndexStub, tenantRegistryStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { USAGE_WINDOW_DAYS, usageTotals } from "../usage";
import { AdminTenantSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/admin/tenants/{tenant_id}",
  operationId: "getTenantAsAdmin",
  summary: "Get a tenant",
  description:
    "Tenants exist implicitly, from their first request or from a platform admin setting their limits or models: an id never seen before shows the platform defaults, and reading it creates nothing (it is not listed until then). `jurisdiction` is where its objects live (`PUT` sets it before the tenant holds data).",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema },
  responses: {
    200: jsonContent(AdminTenantSchema, "The tenant."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  return c.json(await adminTenant(c.env, tenantId), 200);
};

/** The tenant as a platform admin sees it; reads only. */
export async function adminTenant(env: Cloudflare.Env, tenantId: string): Promise<z.infer<typeof AdminTenantSchema>> {
  const index = tenantIndexStub(env, tenantId);
  const registry = tenantRegistryStub(env);
  const [config, daily, counts, progress, record, placement] = await Promise.all([
    index.getConfig(tenantId),
    index.usage(tenantId, { days: USAGE_WINDOW_DAYS }),
    index.counts(tenantId),
    index.deletionProgress(tenantId),
    // Once the index is gone, the registry keeps when the deletion began and ended.
    registry.deletion(tenantId),
    registry.placement(tenantId),
  ]);
  const deletion = progress ?? (record ? recordedProgress(record) : null);
  // A deleted tenant's index reads as a new one's: shown suspended, as its requests are refused.
  const suspended = config.suspended || deletion !== null;
  return {
    ...config,
    suspended,
    jurisdiction: placement.jurisdiction,
    usage: { ...usageTotals(daily, USAGE_WINDOW_DAYS), daily },
    counts,
    deletion,
  };
}
