/** `PATCH /v1/sessions/{id}`: a tenant admin changes a session's limits, raising a budget its run waits on (src/sessions/set-limits.ts). */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { actorOf } from "../actor";
import { auditContext } from "../audit-context";
import { setSessionLimits } from "../../sessions/set-limits";
import { SessionLimitsSchema } from "../../session-config/request-schemas";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

const UpdateSessionRequestSchema = z
  .object({
    limits: SessionLimitsSchema.openapi({
      description:
        "The limits to change; the others stay. Each at most the tenant's (a higher value → 400), and may be raised again up to it: " +
        "raising `max_tokens_per_session` or `max_cost_usd_per_session` lets a run waiting in `waiting_budget` on it go on.",
    }),
  })
  .strict()
  .openapi("UpdateSessionRequest");

export const route = createRoute({
  method: "patch",
  path: "/v1/sessions/{id}",
  operationId: "updateSession",
  summary: "Change a session's limits",
  description:
    "Tenant admins only; audited as `session.limits_updated`. A run waiting in `waiting_budget` goes on when the change raised what it waits on: " +
    "it takes a run slot like any start (else it is `queued`), and every budget is checked again before its next model call.",
  tags: ["Sessions"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    params: SessionIdParamsSchema,
    body: jsonBody(UpdateSessionRequestSchema, { limits: { max_tokens_per_session: 150000 } }),
  },
  responses: {
    200: jsonContent(SessionSchema, "The session with its new limits."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limits } = c.req.valid("json");
  return c.json(await setSessionLimits(actorOf(c), c.req.valid("param").id, limits, auditContext(c)), 200);
};
