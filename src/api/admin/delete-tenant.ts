/**
 * `DELETE /v1/admin/tenants/{tenant_id}`: the tenant is suspended at once, then everything of it
 * is erased in the background (src/lifecycle/tenant-deletion.ts). Asked again, it answers the
 * progress; a tenant the platform never saw is 404.
 */
import { auditContext } from "../audit-context";
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { recordedProgress } from "../../tenants/tenant-deletion";
import { tenantIndexStub, tenantRegistryStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { DeleteTenantResultSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/admin/tenants/{tenant_id}",
  operationId: "deleteTenant",
  summary: "Delete a tenant",
  description:
    "Suspends the tenant, then erases every session, schedule, agent, memory item, API key, webhook endpoint and delivery, " +
    "setting, its index and its registry entry, in the background; resumable after crashes. Follow `deletion` on " +
    "`GET /v1/admin/tenants/{tenant_id}`. Asked again while it runs or once done, it answers the same progress.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema },
  responses: {
    202: jsonContent(DeleteTenantResultSchema, "Deleting (or deleted already)."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  const registry = tenantRegistryStub(c.env);
  const [record, known] = await Promise.all([registry.deletion(tenantId), registry.knows(tenantId)]);
  if (record?.finished_at != null) return c.json({ tenant_id: tenantId, deletion: recordedProgress(record) }, 202);
  // Deleting an id never used would first create its tenant.
  if (!known && !record) throw new ApiError("not_found");
  const deletion = await tenantIndexStub(c.env, tenantId).deleteTenant(tenantId, Date.now(), auditContext(c));
  return c.json({ tenant_id: tenantId, deletion }, 202);
};
