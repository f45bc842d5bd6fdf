/** `GET /v1/sessions/{id}`: the Session, as its session object holds it now; conditional on `If-None-Match`. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { ConditionalHeadersSchema, conditionalJson, conditionalResponses } from "../conditional";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}",
  operationId: "getSession",
  summary: "Get a session",
  description: "The answer carries an `ETag`; poll with `If-None-Match` to get 304 with no body while the session is unchanged.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema, headers: ConditionalHeadersSchema },
  responses: {
    ...conditionalResponses(SessionSchema, "The session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { session } = await loadOwnedSession(c.env, c.var.principal, id);
  return conditionalJson(c, session);
};
