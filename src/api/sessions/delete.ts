/** `DELETE /v1/sessions/{id}`: cancels whatever runs and erases the session (src/sessions/erase.ts). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { eraseSession } from "../../sessions/erase";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { SessionIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}",
  operationId: "deleteSession",
  summary: "Delete a session",
  description: "Cancels a run that is going, then erases the session's history, tool calls and index entry.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    204: { description: "Erased." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await eraseSession(actorOf(c), c.req.valid("param").id);
  return c.body(null, 204);
};
