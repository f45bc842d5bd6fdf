/** `POST /v1/sessions/{id}/fork`: a new session from a copy of this one's messages (src/sessions/fork.ts). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { forkSession } from "../../sessions/fork";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { sessionPath } from "./create";
import { ForkSessionRequestSchema, SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/fork",
  operationId: "forkSession",
  summary: "Fork a session",
  description:
    "A new session with this session's settings (its agent version too) and a copy of its messages up to `at_seq`, with their tool calls " +
    "and images; `forked_from` names the source and the seq. The source does not change; a running source is copied as saved. `at_seq` " +
    "between an answer that asks for tool calls and their results is a 400. With `input` the fork's first run starts at once: to edit " +
    "message N and run again, fork at the seq before N with the edited text. The fork is the caller's.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: {
    params: SessionIdParamsSchema,
    headers: IdempotencyHeadersSchema,
    body: jsonBody(ForkSessionRequestSchema, { at_seq: 2, input: "Try again, but in French." }),
  },
  responses: {
    201: { description: "The fork.", headers: headerRefs("Location"), content: { "application/json": { schema: SessionSchema } } },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const fork = await forkSession(actorOf(c), c.req.valid("param").id, c.req.valid("json"));
  c.header("Location", sessionPath(fork.id));
  return c.json(fork, 201);
};
