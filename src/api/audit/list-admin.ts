/**
 * `GET /v1/admin/audit-log`: with `tenant_id`, that tenant's whole log (its own changes and the
 * platform's changes to it); without, the platform actions of every tenant, from the registry.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub, tenantRegistryStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { platformAdminAuth } from "../security";
import { AdminAuditLogQuerySchema, AuditEntryPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/admin/audit-log",
  operationId: "listPlatformAuditLog",
  summary: "List the platform's audit log",
  description:
    "With `tenant_id`: every entry of that tenant. Without: the platform actions (limits, models, suspension, deletion) of every tenant. Newest first, kept 400 days.",
  tags: ["Audit log"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { query: AdminAuditLogQuerySchema },
  responses: {
    200: jsonContent(AuditEntryPageSchema, "A page of entries."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId, limit, cursor, action, actor, since, until } = c.req.valid("query");
  const input = { limit, cursor: cursor ?? null, action, actor, since, until };
  const page = tenantId ? await tenantIndexStub(c.env, tenantId).listAuditLog(tenantId, input) : await tenantRegistryStub(c.env).listAuditLog(input);
  return c.json(page, 200);
};
