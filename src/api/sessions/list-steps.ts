/**
 * `GET /v1/sessions/{id}/steps`: each unit of work of the session, oldest first, with its kind,
 * start, end, queue time, duration, tokens and outcome, so a slow session shows where its time
 * goes. The newest 1,000 units are kept.
 */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { UNIT_KINDS, UNIT_OUTCOMES } from "../../sessions/object/loop/next-unit";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent, pageQuerySchema, pageSchema, TimestampSchema } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { SEQUENCE_PATTERN } from "../../shared/cursor";
import { SessionIdParamsSchema } from "./schemas";

export const StepSchema = z
  .object({
    seq: z.number().int().openapi({ description: "Position among the session's units, from 1." }),
    kind: z.enum(UNIT_KINDS).openapi({ description: "A model call, the tool calls of one answer, or a summary of older history." }),
    started_at: TimestampSchema,
    ended_at: TimestampSchema,
    queued_ms: z.number().int().openapi({
      description: "From the end of the unit before (or from when the run could go on) to this one's start; includes retry backoff.",
    }),
    duration_ms: z.number().int(),
    input_tokens: z.number().int().nullable().openapi({ description: "Tokens of a model unit; null for tool units." }),
    output_tokens: z.number().int().nullable(),
    outcome: z.enum(UNIT_OUTCOMES).openapi({
      description:
        "`ok`; `retry` (tried again after a backoff); `failed` (the run failed); `discarded` (a cancel, pause or restart made it stale); `partial` (stopped to fit its time budget); `error` (an unexpected fault, retried).",
    }),
  })
  .openapi("Step");

export const StepPageSchema = pageSchema(StepSchema, "StepPage");

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/steps",
  operationId: "listSessionSteps",
  summary: "List a session's steps",
  description: "The timing of each unit of work, oldest first; the newest 1,000 are kept.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema, query: pageQuerySchema((cursor) => SEQUENCE_PATTERN.test(cursor)) },
  responses: {
    200: jsonContent(StepPageSchema, "A page of steps."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { cursor, limit } = c.req.valid("query");
  const { client } = await loadOwnedSession(c.env, c.var.principal, id);
  return c.json(await client.listSteps(cursor === undefined ? 0 : Number(cursor), limit), 200);
};
