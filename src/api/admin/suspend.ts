/**
 * `POST /v1/admin/tenants/{tenant_id}/suspend`: the tenant's requests get 403 from now on and
 * its active sessions are cancelled. Suspending twice is harmless.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { SuspendResultSchema } from "./schemas";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";

export const route = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenant_id}/suspend",
  operationId: "suspendTenant",
  summary: "Suspend a tenant",
  description: "A tenant id never seen is 404 (nothing is created); a deleted tenant, or one being deleted, is 409.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema },
  responses: {
    200: jsonContent(SuspendResultSchema, "Suspended."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "not_found");
  const { cancelled } = await tenantIndexStub(c.env, tenantId).suspend(tenantId, auditContext(c));
  return c.json({ tenant_id: tenantId, suspended: true as const, cancelled }, 200);
};
