/** `POST /v1/sessions/{id}/tool-calls/{call_id}/output`: the result of a client tool the run waits for. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { decidingClient, requireToolCallId, viewerOf } from "../../sessions/access";
import { SessionSchema, ToolCallParamsSchema, ToolOutputRequestSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/tool-calls/{call_id}/output",
  operationId: "submitToolOutput",
  summary: "Submit a client tool's output",
  description:
    "404 for an unknown call; 409 unless the call is waiting for its output. The output is cut to `max_tool_output_chars`. When the run can go on but the tenant has no free run slot, the session becomes `queued` and goes on by itself when one frees.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    params: ToolCallParamsSchema,
    body: jsonBody(ToolOutputRequestSchema, { output: "The customer confirmed the new delivery date.", is_error: false }),
  },
  responses: {
    200: jsonContent(SessionSchema, "The session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, call_id } = c.req.valid("param");
  const body = c.req.valid("json");
  const callId = requireToolCallId(call_id);
  return c.json(
    await decidingClient(c.env, c.var.principal, id).submitToolOutput(
      callId,
      body.output,
      body.is_error === true,
      viewerOf(c.var.principal),
    ),
    200,
  );
};
