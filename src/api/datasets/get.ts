/** `GET /v1/datasets/{id}`: the dataset with its items, in order (an item's index is its position). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetIdParamsSchema, DatasetWithItemsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/datasets/{id}",
  operationId: "getDataset",
  summary: "Get a dataset",
  tags: ["Evals"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: DatasetIdParamsSchema },
  responses: { 200: jsonContent(DatasetWithItemsSchema, "The dataset and its items."), ...errorResponses(...AUTHENTICATED_ERRORS, 404) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownDatasetId(c.req.valid("param").id);
  return c.json((await new EvalClient(c.env, c.var.principal.tenantId).call("getDataset", { id })) as never, 200);
};
