/** `GET /v1/tenant/audit-log`: the tenant's administrative changes, newest first. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { AuditEntryPageSchema, AuditLogQuerySchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/audit-log",
  operationId: "listTenantAuditLog",
  summary: "List the tenant's audit log",
  description: "Every administrative change of the tenant, newest first, kept 400 days. No route edits or deletes an entry.",
  tags: ["Audit log"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { query: AuditLogQuerySchema },
  responses: {
    200: jsonContent(AuditEntryPageSchema, "A page of entries."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor, action, actor, since, until } = c.req.valid("query");
  const { tenantId } = c.var.principal;
  const page = await tenantIndexStub(c.env, tenantId).listAuditLog(tenantId, {
    limit,
    cursor: cursor ?? null,
    action,
    actor,
    since,
    until,
  });
  return c.json(page, 200);
};
