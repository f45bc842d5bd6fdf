/**
 * `POST /v1/datasets/{id}/items/from-session`: the session's first input and final answer become
 * an item (`{ input, expected }`), so a good (or corrected) conversation turns into a test case.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { loadOwnedSession } from "../../sessions/access";
import { transcriptEnds } from "../../sessions/transcript-ends";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownDatasetId } from "./ids";
import { DatasetIdParamsSchema, DatasetSchema, FromSessionRequestSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/datasets/{id}/items/from-session",
  operationId: "addDatasetItemFromSession",
  summary: "Add a session as a dataset item",
  description:
    "Appends `{ input: <the session's first input>, expected: <its final answer> }` (and `metadata.session_id`). 409 when the session has no text input or no answer yet.",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: DatasetIdParamsSchema, body: jsonBody(FromSessionRequestSchema, { session_id: "ses_3kTq9vXbW2mYp7LsQa1Zc0Rd" }) },
  responses: {
    200: jsonContent(DatasetSchema, "The dataset at its new version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownDatasetId(c.req.valid("param").id);
  const body = c.req.valid("json");
  const { client } = await loadOwnedSession(c.env, c.var.principal, body.session_id);
  const ends = await transcriptEnds(client);
  if (ends.firstInput === null) throw new ApiError("conflict", "The session has no text input to use as an item's input.");
  if (ends.answer === null) throw new ApiError("conflict", "The session has no answer yet.");
  const item = { input: ends.firstInput, expected: ends.answer, metadata: { ...body.metadata, session_id: body.session_id } };
  return c.json(
    await new EvalClient(c.env, c.var.principal.tenantId).call("addItems", { id, items: [item], now: Date.now() }, auditContext(c)),
    200,
  );
};
