/** `POST /v1/sessions/{id}/resume`: continues a paused run (src/sessions/resume.ts). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { resumeSession } from "../../sessions/resume";
import { actorOf } from "../actor";
import { SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/resume",
  operationId: "resumeSession",
  summary: "Resume a paused session",
  description:
    "409 unless the session is paused; 429 when the tenant's daily tokens are used up. Without a free run slot the session becomes `queued` and goes on by itself when one frees.",
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
  return c.json(await resumeSession(actorOf(c), c.req.valid("param").id), 200);
};
