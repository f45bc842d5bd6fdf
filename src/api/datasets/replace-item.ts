/** `PUT /v1/datasets/{id}/items/{index}`: one item replaced in place; the dataset's version moves on. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetItemSchema, DatasetSchema, ItemParamsSchema } from "./schemas";

export const route = createRoute({
  method: "put",
  path: "/v1/datasets/{id}/items/{index}",
  operationId: "replaceDatasetItem",
  summary: "Replace a dataset item",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: ItemParamsSchema, body: jsonBody(DatasetItemSchema, { input: "What is the capital of Italy?", expected: "Rome" }) },
  responses: {
    200: jsonContent(DatasetSchema, "The dataset at its new version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const params = c.req.valid("param");
  const id = knownDatasetId(params.id);
  const item = c.req.valid("json");
  const client = new EvalClient(c.env, c.var.principal.tenantId);
  return c.json(await client.call("replaceItem", { id, index: Number(params.index), item, now: Date.now() }, auditContext(c)), 200);
};
