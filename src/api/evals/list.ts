/** `GET /v1/evals`: the tenant's evals, newest first, without their items. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { EvalListQuerySchema, EvalPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/evals",
  operationId: "listEvals",
  summary: "List evals",
  tags: ["Evals"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: EvalListQuerySchema },
  responses: { 200: jsonContent(EvalPageSchema, "A page of evals."), ...errorResponses(...AUTHENTICATED_ERRORS) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  return c.json((await new EvalClient(c.env, c.var.principal.tenantId).call("listEvals", { limit, cursor: cursor ?? null })) as never, 200);
};
