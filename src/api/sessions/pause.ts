/** `POST /v1/sessions/{id}/pause`: holds a run between steps until it is resumed or cancelled. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/pause",
  operationId: "pauseSession",
  summary: "Pause a session's run",
  description: "409 unless the session is running or waiting. A paused run keeps its concurrency slot.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    200: jsonContent(SessionSchema, "The paused session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { client } = await loadOwnedSession(c.env, c.var.principal, id);
  return c.json(await client.pause(), 200);
};
