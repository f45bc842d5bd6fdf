/**
 * `GET /v1/admin/tenants/{tenant_id}/sessions`: every session of a tenant, newest first, for
 * platform admins and for that tenant's own admins.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireTenantAdmin } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { bearerAuth } from "../security";
import { AdminSessionListQuerySchema, SessionSummaryPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/admin/tenants/{tenant_id}/sessions",
  operationId: "listTenantSessions",
  summary: "List a tenant's sessions",
  description: "Requires platform:admin, or tenant:admin of this tenant.",
  tags: ["Admin"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireTenantAdmin()] as const,
  request: { params: TenantIdParamsSchema, query: AdminSessionListQuerySchema },
  responses: {
    200: jsonContent(SessionSummaryPageSchema, "A page of sessions."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  const { limit, cursor, status, created_by } = c.req.valid("query");
  const page = await tenantIndexStub(c.env, tenantId).listSessions(tenantId, {
    limit,
    cursor: cursor ?? null,
    status: status ?? null,
    created_by: created_by ?? null,
  });
  return c.json(page, 200);
};
