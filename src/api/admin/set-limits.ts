/**
 * `PUT /v1/admin/tenants/{tenant_id}/limits`: replaces a tenant's limit overrides as a whole;
 * a name left out falls back to the platform default.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent, LimitOverridesSchema, TenantIdParamsSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { TenantConfigSchema } from "./schemas";
import { auditContext } from "../audit-context";
import { requireLiveTenant } from "./live-tenant";

export const route = createRoute({
  method: "put",
  path: "/v1/admin/tenants/{tenant_id}/limits",
  operationId: "setTenantLimits",
  summary: "Set a tenant's limits",
  description:
    "A tenant id never seen is provisioned by this call (listed from then on, and deletable), so its limits hold from its first request. A deleted tenant, or one being deleted, is 409.",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: {
    params: TenantIdParamsSchema,
    body: jsonBody(LimitOverridesSchema, { max_concurrent_runs: 20, requests_per_minute: 1200, max_tokens_per_day: 5_000_000 }),
  },
  responses: {
    200: jsonContent(TenantConfigSchema, "The tenant's config with its new limits."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenant_id: tenantId } = c.req.valid("param");
  await requireLiveTenant(c.env, tenantId, "provision");
  const overrides = c.req.valid("json");
  const config = await tenantIndexStub(c.env, tenantId).setLimitOverrides(tenantId, overrides, auditContext(c));
  return c.json(config, 200);
};
