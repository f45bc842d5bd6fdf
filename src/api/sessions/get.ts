/** `GET /v1/sessions/{id}`: the Session, as its Agent holds it now. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "./access";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}",
  operationId: "getSession",
  summary: "Get a session",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    200: jsonContent(SessionSchema, "The session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { session } = await loadOwnedSession(c.env, c.var.principal, id);
  return c.json(session, 200);
};
