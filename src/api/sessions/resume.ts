/**
 * `POST /v1/sessions/{id}/resume`: continues a paused run. It spends tokens again, so the daily
 * budget applies; a paused session holds no run slot, so without a free one it goes `queued`
 * and starts by itself when one frees, instead of being refused.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { agentProblem } from "../../sessions/client";
import { checkDailyBudget } from "../../sessions/run-admission";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/resume",
  operationId: "resumeSession",
  summary: "Resume a paused session",
  description: "409 unless the session is paused; 429 when the tenant's daily tokens are used up. Without a free run slot the session becomes `queued` and goes on by itself when one frees.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: { params: SessionIdParamsSchema, headers: IdempotencyHeadersSchema },
  responses: {
    200: jsonContent(SessionSchema, "The session, running again."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const principal = c.var.principal;
  const { session, agent } = await loadOwnedSession(c.env, principal, id);
  // Checked before admission so a wrong-state call takes no slot; the Agent checks again.
  if (session.status !== "paused") throw agentProblem({ reason: "wrong_status", action: "resume", status: session.status });
  await checkDailyBudget(c.env, principal.tenantId, c.var.limits, Date.now());
  return c.json(await agent.resume(c.var.limits), 200);
};
