/** `POST /v1/datasets`: a named list of cases, `{ input, expected?, metadata? }`, at version 1. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { CREATE_DATASET_EXAMPLE, CreateDatasetRequestSchema, DatasetSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/datasets",
  operationId: "createDataset",
  summary: "Create a dataset",
  description:
    "At most 1,000 items; each item's `input` is checked as a session's first input would be. 409 when the tenant has the most datasets it may keep.",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { body: jsonBody(CreateDatasetRequestSchema, CREATE_DATASET_EXAMPLE) },
  responses: {
    201: { description: "The new dataset.", headers: headerRefs("Location"), content: { "application/json": { schema: DatasetSchema } } },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const dataset = await new EvalClient(c.env, c.var.principal.tenantId).call(
    "createDataset",
    { name: body.name, items: body.items, createdBy: c.var.principal.subject, now: Date.now() },
    auditContext(c),
  );
  c.header("Location", `/v1/datasets/${dataset.id}`);
  return c.json(dataset, 201);
};
