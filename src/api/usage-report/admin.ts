/**
 * `GET /v1/admin/usage`: usage across tenants (or of one, `tenant_id`), grouped and priced. Each
 * tenant's index answers for its own rows; the registry is walked a page at a time.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub, tenantRegistryStub } from "../../objects";
import type { RollupRow, UsageDimension } from "../../usage/rollup";
import { type Dimension, usageReport } from "../../usage/report";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, TenantIdSchema } from "../schemas";
import { platformAdminAuth } from "../security";
import { UsageReportSchema, usageQuerySchema, usageRange } from "./schemas";

export const ADMIN_DIMENSIONS: readonly Dimension[] = ["tenant", "day", "model", "api_key", "created_by", "agent"];
/** Tenants asked at once: each is one RPC to its index. */
const TENANTS_PER_PAGE = 100;

export const route = createRoute({
  method: "get",
  path: "/v1/admin/usage",
  operationId: "getPlatformUsage",
  summary: "Get usage and cost across tenants",
  tags: ["Admin"],
  security: platformAdminAuth(),
  middleware: [requireScope("platform:admin")] as const,
  request: {
    query: usageQuerySchema(ADMIN_DIMENSIONS).extend({
      tenant_id: TenantIdSchema.optional().openapi({ description: "Only this tenant." }),
    }),
  },
  responses: {
    200: jsonContent(UsageReportSchema, "The usage."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const range = usageRange(query, ADMIN_DIMENSIONS, Date.now());
  const input = { from: range.from, to: range.to, group_by: range.groupBy.filter((name): name is UsageDimension => name !== "tenant") };
  const rowsOf = async (tenantId: string) =>
    (await tenantIndexStub(c.env, tenantId).usageRollup(tenantId, input)).map((row: RollupRow) => ({ ...row, tenant_id: tenantId }));
  const rows: (RollupRow & { tenant_id: string })[] = [];
  if (query.tenant_id !== undefined) rows.push(...(await rowsOf(query.tenant_id)));
  else {
    let cursor: string | null = null;
    do {
      const page = await tenantRegistryStub(c.env).list({ limit: TENANTS_PER_PAGE, cursor });
      for (const found of await Promise.all(page.data.map((entry) => rowsOf(entry.tenant_id)))) rows.push(...found);
      cursor = page.next_cursor;
    } while (cursor !== null);
  }
  const report = usageReport(rows, range.groupBy, c.var.config.prices);
  return c.json({ from: range.from, to: range.to, group_by: range.groupBy, ...report }, 200);
};
