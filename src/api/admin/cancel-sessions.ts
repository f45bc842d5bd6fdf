/**
 * `POST /v1/admin/tenants/{tenant_id}/sessions/cancel`: cancels a tenant's active sessions that
 * match a filter. Repeating it is harmless (nothing is left to cancel), so it takes no
 * Idempotency-Key.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireTenantAdmin } from "../middleware/require-scope";
import { jsonBody, jsonContent, TenantIdParamsSchema } from "../schemas";
import { bearerAuth } from "../security";
import { CancelResultSchema, CancelSessionsBodySchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/admin/tenants/{tenant_id}/sessions/cancel",
  operationId: "cancelTenantSessions",
  summary: "Cancel a tenant's sessions by filter",
  description:
    "Requires platform:admin, or tenant:admin of this tenant. A tenant id never seen is 404; a deleted tenant, or one being deleted, is 409.",
  tags: ["Admin"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireTenantAdmin()] as const,
  request: { params: TenantIdParamsSchema, body: jsonBody(CancelSessionsBodySchema, { status: "running", created_by: "billing-backend" }) },
  responses: {
    200: jsonContent(CancelResultSchema, "How many were cancelled."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "not_found");
  const filter = c.req.valid("json");
  const result = await tenantIndexStub(c.env, tenantId).cancelSessions(
    tenantId,
    {
      status: filter.status ?? null,
      created_by: filter.created_by ?? null,
    },
    auditContext(c),
  );
  return c.json({ cancelled: result.cancelled }, 200);
};
