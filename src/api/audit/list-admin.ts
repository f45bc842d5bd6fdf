/**
 * `GET /v1/admin/audit-log`: with `tenant_id`, that tenant's whole log (its own changes and the
 * platform's changes to it); without, the platform actions of every tenant, from the registry.
 * A deleted tenant's own log went with its index: its platform actions (its deletion among them)
 * are read from the registry's copy, which outlives it.
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
    "With `tenant_id`: every entry of that tenant (of a deleted tenant, its platform actions, its deletion among them). Without: the platform actions (limits, models, suspension, deletion) of every tenant. Newest first, kept 400 days.",
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
  const registry = tenantRegistryStub(c.env);
  if (!tenantId) return c.json(await registry.listAuditLog(input), 200);
  // Finished is recorded before the index empties itself, so no read falls between the two.
  const [deletion, listed] = await Promise.all([registry.deletion(tenantId), registry.knows(tenantId)]);
  const deleted = deletion?.finished_at != null;
  // A tenant never used has no log of its own yet: only the platform's entries (its jurisdiction).
  const page =
    deleted || !listed
      ? await registry.listAuditLog({ ...input, tenant_id: tenantId })
      : await tenantIndexStub(c.env, tenantId).listAuditLog(tenantId, input);
  return c.json(page, 200);
};
