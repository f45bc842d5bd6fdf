/**
 * `POST /v1/sessions/{id}/messages`: adds a user message and starts a run. A session with a
 * run going answers 409 before a concurrency slot is taken, so a refused call costs nothing.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { ACTIVE_STATUSES } from "../../agents/types";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "./access";
import { agentProblem } from "./agent-client";
import { admitRun, startWithSlot } from "./run-admission";
import { AddMessageRequestSchema, SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/messages",
  operationId: "addSessionMessage",
  summary: "Add a message and start a run",
  description: "409 while a run is going (running, waiting or paused); 429 when the tenant's runs or daily tokens are used up.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: { params: SessionIdParamsSchema, headers: IdempotencyHeadersSchema, body: jsonBody(AddMessageRequestSchema, { input: "And when will it arrive?" }) },
  responses: {
    202: jsonContent(SessionSchema, "The session, with its run started."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { input } = c.req.valid("json");
  const principal = c.var.principal;
  const { session, agent } = await loadOwnedSession(c.env, principal, id);
  if (ACTIVE_STATUSES.includes(session.status)) throw agentProblem({ reason: "run_going" });
  await admitRun(c.env, principal.tenantId, id, c.var.limits, Date.now());
  // The tenant's current limits also cap a session created under looser ones.
  const started = await startWithSlot(c.env, principal.tenantId, id, () => agent.start(input, c.var.limits));
  return c.json(started, 202);
};
