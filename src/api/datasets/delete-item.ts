/** `DELETE /v1/datasets/{id}/items/{index}`: one item removed; those after it move up one. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetSchema, ItemParamsSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/datasets/{id}/items/{index}",
  operationId: "deleteDatasetItem",
  summary: "Delete a dataset item",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: ItemParamsSchema },
  responses: { 200: jsonContent(DatasetSchema, "The dataset at its new version."), ...errorResponses(...AUTHENTICATED_ERRORS, 404) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const params = c.req.valid("param");
  const id = knownDatasetId(params.id);
  const client = new EvalClient(c.env, c.var.principal.tenantId);
  return c.json(await client.call("deleteItem", { id, index: Number(params.index), now: Date.now() }, auditContext(c)), 200);
};
