/** `POST /v1/evals/{id}/cancel`: no item starts any more, and the sessions still running are cancelled. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { auditContext } from "../audit-context";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownEvalId } from "./ids";
import { EvalIdParamsSchema, EvalSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/evals/{id}/cancel",
  operationId: "cancelEval",
  summary: "Cancel an eval",
  description: "409 when the eval has ended. Its running sessions are cancelled within a second or two; their items end `cancelled`.",
  tags: ["Evals"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: EvalIdParamsSchema },
  responses: { 200: jsonContent(EvalSchema, "The eval, cancelled."), ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownEvalId(c.req.valid("param").id);
  return c.json(
    (await new EvalClient(c.env, c.var.principal.tenantId).call("cancelEval", { id, now: Date.now() }, auditContext(c))) as never,
    200,
  );
};
