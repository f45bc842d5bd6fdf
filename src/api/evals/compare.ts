/** `GET /v1/evals/compare?a=&b=`: two evals item by item (matched by dataset index), with the regressions of `b` against `a`. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EvalClient } from "../../evals/client";
import { compareEvals } from "../../evals/results";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownEvalId } from "./ids";
import { CompareQuerySchema, ComparisonSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/evals/compare",
  operationId: "compareEvals",
  summary: "Compare two evals",
  description:
    "Scorers are matched by key, items by index; `regressions` lists the items where some scorer scored lower in `b`. 400 at `query.b` for evals of different datasets.",
  tags: ["Evals"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: CompareQuerySchema },
  responses: { 200: jsonContent(ComparisonSchema, "The comparison."), ...errorResponses(...AUTHENTICATED_ERRORS, 404) },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const query = c.req.valid("query");
  const client = new EvalClient(c.env, c.var.principal.tenantId);
  const [a, b] = await Promise.all([
    client.call("getEval", { id: knownEvalId(query.a) }),
    client.call("getEval", { id: knownEvalId(query.b) }),
  ]);
  // Items match by index: evals of different datasets have no items in common to compare.
  if (a.dataset_id !== b.dataset_id)
    throw new ApiError("validation_failed", "The two evals ran over different datasets; only evals of one dataset compare.", {
      errors: [{ path: "query.b", message: `Eval ${b.id} ran over dataset ${b.dataset_id}, not ${a.dataset_id} as eval ${a.id}.` }],
    });
  return c.json(compareEvals(a, b) as never, 200);
};
