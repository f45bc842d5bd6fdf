/**
 * `POST /v1/sessions/{id}/tool-calls/{call_id}/deny`: refuses a call that waits for approval;
 * the model gets an error result, with the reason when one is given. The body is optional.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { decidingClient, requireToolCallId, viewerOf } from "../../sessions/access";
import { DenyToolCallRequestSchema, SessionSchema, ToolCallParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/tool-calls/{call_id}/deny",
  operationId: "denyToolCall",
  summary: "Deny a tool call",
  description:
    "404 for an unknown call; 409 unless the call is waiting for approval. When the run can go on but the tenant has no free run slot, the session becomes `queued` and goes on by itself when one frees.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    params: ToolCallParamsSchema,
    // Optional on purpose: a bare POST denies without a reason.
    body: {
      required: false,
      content: { "application/json": { schema: DenyToolCallRequestSchema, example: { reason: "Refunds above 100 EUR need a manager." } } },
    },
  },
  responses: {
    200: jsonContent(SessionSchema, "The session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, call_id } = c.req.valid("param");
  const { reason } = c.req.valid("json");
  const callId = requireToolCallId(call_id);
  return c.json(
    await decidingClient(c.env, c.var.principal, id).deny(callId, reason?.trim() || null, viewerOf(c.var.principal), auditContext(c)),
    200,
  );
};
