/**
 * `POST /v1/sessions/{id}/messages`: adds a user message and starts a run, or queues it, or
 * interrupts the run going (src/sessions/add-message.ts).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { addMessage } from "../../sessions/add-message";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { AddMessageRequestSchema, SessionIdParamsSchema, SessionSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/messages",
  operationId: "addSessionMessage",
  summary: "Add a message and start a run",
  description:
    "While a run is going (running, waiting or paused), `if_running` decides: `reject` (default) answers 409, `enqueue` keeps the message " +
    "for the next run (409 when the queue is full), `interrupt` stops the current run and starts one with the message. " +
    "429 when the tenant's runs or daily tokens are used up. `output_schema` applies to this message's run (null: a free answer; " +
    "absent: the session's). Images are checked and stored before the session is asked (400 as for a create).",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: {
    params: SessionIdParamsSchema,
    headers: IdempotencyHeadersSchema,
    body: jsonBody(AddMessageRequestSchema, { input: "And when will it arrive?" }),
  },
  responses: {
    202: jsonContent(SessionSchema, "The session, with its run started or the message queued."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { session } = await addMessage(actorOf(c), c.req.valid("param").id, c.req.valid("json"));
  return c.json(session, 202);
};
