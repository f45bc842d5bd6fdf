/** `GET /v1/tenant`: the caller's own tenant: effective limits, usage and session counts. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { USAGE_WINDOW_DAYS, usageTotals } from "../usage";
import { TenantSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant",
  operationId: "getTenant",
  summary: "Get your tenant",
  tags: ["Tenant"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  responses: {
    200: jsonContent(TenantSchema, "The tenant."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const index = tenantIndexStub(c.env, tenantId);
  const [config, daily, counts] = await Promise.all([
    index.getConfig(tenantId),
    index.usage(tenantId, { days: USAGE_WINDOW_DAYS }),
    index.counts(tenantId),
  ]);
  return c.json(
    {
      tenant_id: config.tenant_id,
      suspended: config.suspended,
      limits: config.effective_limits,
      usage: { ...usageTotals(daily, USAGE_WINDOW_DAYS), daily },
      counts,
      created_at: config.created_at,
    },
    200,
  );
};
