/** `POST /v1/admin/tenants/{tenant_id}/unsuspend`: lets the tenant in again. Cancelled runs stay cancelled. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { TenantConfigSchema } from "./schemas";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";

export const route = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenant_id}/unsuspend",
  operationId: "unsuspendTenant",
  summary: "Lift a tenant's suspension",
  description: "A tenant id never seen is 404 (nothing is created); a deleted tenant, or one being deleted, is 409.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema },
  responses: {
    200: jsonContent(TenantConfigSchema, "The tenant's config."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "not_found");
  const index = tenantIndexStub(c.env, tenantId);
  await index.unsuspend(tenantId, auditContext(c));
  return c.json(await index.getConfig(tenantId), 200);
};
