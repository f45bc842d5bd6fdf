/** `GET /v1/tenant/usage`: the tenant's usage over a range of UTC days, grouped and priced. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { UsageDimension } from "../../usage/rollup";
import { type Dimension, usageReport } from "../../usage/report";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { UsageReportSchema, usageQuerySchema, usageRange } from "./schemas";

export const TENANT_DIMENSIONS: readonly Dimension[] = ["day", "model", "api_key", "created_by", "agent"];

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/usage",
  operationId: "getTenantUsage",
  summary: "Get your tenant's usage and cost",
  description:
    "Runs, model calls, tokens and cost over a range of UTC days (at most 400, the days kept), grouped by any of the dimensions.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { query: usageQuerySchema(TENANT_DIMENSIONS) },
  responses: {
    200: jsonContent(UsageReportSchema, "The usage."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const range = usageRange(c.req.valid("query"), TENANT_DIMENSIONS, Date.now());
  const { tenantId } = c.var.principal;
  const rows = await tenantIndexStub(c.env, tenantId).usageRollup(tenantId, {
    from: range.from,
    to: range.to,
    group_by: range.groupBy as UsageDimension[],
  });
  const report = usageReport(rows, range.groupBy, c.var.config.prices);
  return c.json({ from: range.from, to: range.to, group_by: range.groupBy, ...report }, 200);
};
