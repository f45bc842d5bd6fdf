/**
 * `PUT /v1/admin/tenants/{tenant_id}`: pins every object of a tenant to a jurisdiction, before the
 * tenant holds data (docs/deploying.md, "Residency"); audited in the platform's log.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { agentStoreStub, memoryStoreStub, schedulerStub, tenantIndexStub, tenantRegistryStub, vaultStub } from "../../objects";
import type { StorageFootprint } from "../../storage/object-storage";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { adminTenant } from "./get-tenant";
import { AdminTenantSchema, TenantPlacementSchema } from "./schemas";

export const route = createRoute({
  method: "put",
  path: "/v1/admin/tenants/{tenant_id}",
  operationId: "setTenantJurisdiction",
  summary: "Set a tenant's jurisdiction",
  description:
    "Every Durable Object of the tenant (its sessions, index, agents, memory, scheduler, vault and audit log) is created in this jurisdiction; null: no restriction. " +
    "Only before the tenant holds data: once it is listed (its first request, or its limits, models or suspension set) or any of its objects stores anything, this is 409, and so it is for a deleted tenant.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { params: TenantIdParamsSchema, body: jsonBody(TenantPlacementSchema, { jurisdiction: "eu" }) },
  responses: {
    200: jsonContent(AdminTenantSchema, "The tenant, with its jurisdiction."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

const HOLDS_DATA = "This tenant holds data already: its jurisdiction is set before its first request, or not at all.";

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  const { jurisdiction } = c.req.valid("json");
  if (await storesAnything(c.env, tenantId)) throw new ApiError("conflict", HOLDS_DATA);
  // The registry checks again, with the change, in one transaction: a tenant listed meanwhile is refused.
  const change = await tenantRegistryStub(c.env).setJurisdiction(tenantId, jurisdiction, Date.now(), auditContext(c));
  if (!change.ok) throw new ApiError("conflict", change.reason === "deleted" ? "This tenant was deleted." : HOLDS_DATA);
  // Every isolate sees the change at its next stub: a tenant not yet listed has its placement asked for each time (objects.ts).
  return c.json(await adminTenant(c.env, tenantId), 200);
};

/** Whether any object of the tenant, where it lives now, stores anything (sessions need a bound index, so the index stands for them). */
async function storesAnything(env: Cloudflare.Env, tenantId: string): Promise<boolean> {
  const footprints: StorageFootprint[] = await Promise.all([
    tenantIndexStub(env, tenantId).footprint(),
    schedulerStub(env, tenantId).footprint(),
    agentStoreStub(env, tenantId).footprint(),
    memoryStoreStub(env, tenantId).footprint(),
    vaultStub(env, tenantId).footprint(),
  ]);
  return footprints.some((footprint) => footprint.rows + footprint.kv_keys > 0);
}
