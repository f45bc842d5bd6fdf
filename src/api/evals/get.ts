/** `GET /v1/evals/{id}`: the eval's progress, per-scorer means, cost and duration, and every item with its session and scores. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownEvalId } from "./ids";
import { EvalIdParamsSchema, EvalSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/evals/{id}",
  operationId: "getEval",
  summary: "Get an eval",
  tags: ["Evals"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: EvalIdParamsSchema },
  responses: { 200: jsonContent(EvalSchema, "The eval and its items."), ...errorResponses(...AUTHENTICATED_ERRORS, 404) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownEvalId(c.req.valid("param").id);
  return c.json((await new EvalClient(c.env, c.var.principal.tenantId).call("getEval", { id })) as never, 200);
};
