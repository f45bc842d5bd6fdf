/** `GET /v1/tenant/settings`: the caller's tenant's own settings. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { shownSettings } from "../../tenants/tenant-settings";
import { TenantSettingsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/settings",
  operationId: "getTenantSettings",
  summary: "Get your tenant's settings",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    200: jsonContent(TenantSettingsSchema, "The settings."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  return c.json(shownSettings(await tenantIndexStub(c.env, tenantId).getSettings(tenantId)), 200);
};
