/** `DELETE /v1/datasets/{id}`: the dataset and its items go; evals that ran it keep their own copy of its items. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/datasets/{id}",
  operationId: "deleteDataset",
  summary: "Delete a dataset",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: DatasetIdParamsSchema },
  responses: { 204: { description: "Deleted." }, ...errorResponses(...AUTHENTICATED_ERRORS, 404) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownDatasetId(c.req.valid("param").id);
  await new EvalClient(c.env, c.var.principal.tenantId).call("deleteDataset", { id }, auditContext(c));
  return c.body(null, 204);
};
