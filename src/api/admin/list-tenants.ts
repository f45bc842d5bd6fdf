/** `GET /v1/admin/tenants`: every tenant, by id, with its suspension and recent usage. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { tenantRegistryStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { platformAdminAuth } from "../security";
import { USAGE_WINDOW_DAYS, usageTotals } from "../usage";
import { TenantListQuerySchema, TenantPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/admin/tenants",
  operationId: "listTenants",
  summary: "List tenants",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: { query: TenantListQuerySchema },
  responses: {
    200: jsonContent(TenantPageSchema, "A page of tenants."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const page = await tenantRegistryStub(c.env).list({ limit, cursor: cursor ?? null });
  const data = await Promise.all(
    page.data.map(async (entry) => {
      const index = tenantIndexStub(c.env, entry.tenant_id);
      const [config, daily] = await Promise.all([
        index.getConfig(entry.tenant_id),
        index.usage(entry.tenant_id, { days: USAGE_WINDOW_DAYS }),
      ]);
      return {
        tenant_id: entry.tenant_id,
        created_at: entry.created_at,
        suspended: config.suspended,
        jurisdiction: entry.jurisdiction,
        usage: usageTotals(daily, USAGE_WINDOW_DAYS),
      };
    }),
  );
  return c.json({ data, next_cursor: page.next_cursor }, 200);
};
