/** `POST /v1/datasets/{id}/items`: items appended in order; the dataset's version moves on. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { AddItemsRequestSchema, DatasetIdParamsSchema, DatasetSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/datasets/{id}/items",
  operationId: "addDatasetItems",
  summary: "Add items to a dataset",
  description: "400 (at `body.items`) when the dataset would hold more than 1,000 items.",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: {
    params: DatasetIdParamsSchema,
    body: jsonBody(AddItemsRequestSchema, { items: [{ input: "What is 2 + 2?", expected: "4" }] }),
  },
  responses: {
    200: jsonContent(DatasetSchema, "The dataset at its new version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownDatasetId(c.req.valid("param").id);
  const { items } = c.req.valid("json");
  return c.json(
    await new EvalClient(c.env, c.var.principal.tenantId).call("addItems", { id, items, now: Date.now() }, auditContext(c)),
    200,
  );
};
