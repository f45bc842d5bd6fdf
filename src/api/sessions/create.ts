/**
 * `POST /v1/sessions`: creates a session (src/sessions/create.ts); with `input` its first run
 * starts at once.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { createSession } from "../../sessions/create";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { CREATE_SESSION_EXAMPLE, CreateSessionRequestSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions",
  operationId: "createSession",
  summary: "Create a session",
  description:
    "With `input`, the first run starts at once (429 when the tenant's concurrent runs or daily tokens are used up). " +
    "`limits` may only lower the tenant's limits; `model` must be one the platform and the tenant allow. Images in `input` are " +
    "checked and stored before the session exists (400 for one too large, not an image, at a URL that cannot be fetched, or for a " +
    "model that does not take images). With `output_schema`, a run ends `done` with the parsed answer in `output`.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: { headers: IdempotencyHeadersSchema, body: jsonBody(CreateSessionRequestSchema, CREATE_SESSION_EXAMPLE) },
  responses: {
    201: {
      description: "The new session.",
      headers: headerRefs("Location"),
      content: { "application/json": { schema: SessionSchema } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409, 422),
  },
});

export function sessionPath(id: string): string {
  return `/v1/sessions/${id}`;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const session = await createSession(actorOf(c), c.req.valid("json"));
  c.header("Location", sessionPath(session.id));
  return c.json(session, 201);
};
