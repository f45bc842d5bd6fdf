/** `GET /v1/admin/tenants/{tenant_id}`: a tenant's config, limits, usage and session counts. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
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
  description: "Tenants exist implicitly: an id never seen before shows the platform defaults, and reading it creates nothing (it is not listed until it is used).",
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
  const index = tenantIndexStub(c.env, tenantId);
  const [config, daily, counts] = await Promise.all([
    index.getConfig(tenantId),
    index.usage(tenantId, { days: USAGE_WINDOW_DAYS }),
    index.counts(tenantId),
  ]);
  return c.json({ ...config, usage: { ...usageTotals(daily, USAGE_WINDOW_DAYS), daily }, counts }, 200);
};
