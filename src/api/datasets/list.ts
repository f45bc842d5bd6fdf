/** `GET /v1/datasets`: the tenant's datasets, newest first (without their items). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { DatasetListQuerySchema, DatasetPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/datasets",
  operationId: "listDatasets",
  summary: "List datasets",
  tags: ["Evals"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: DatasetListQuerySchema },
  responses: { 200: jsonContent(DatasetPageSchema, "A page of datasets."), ...errorResponses(...AUTHENTICATED_ERRORS) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  return c.json(await new EvalClient(c.env, c.var.principal.tenantId).call("listDatasets", { limit, cursor: cursor ?? null }), 200);
};
