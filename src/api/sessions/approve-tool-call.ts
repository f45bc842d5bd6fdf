/** `POST /v1/sessions/{id}/tool-calls/{call_id}/approve`: lets a call that waits for approval run. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { decidingClient, requireToolCallId, viewerOf } from "../../sessions/access";
import { SessionSchema, ToolCallParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/sessions/{id}/tool-calls/{call_id}/approve",
  operationId: "approveToolCall",
  summary: "Approve a tool call",
  description:
    "404 for an unknown call; 409 unless the call is waiting for approval. A client tool then waits for its output. When the run can go on but the tenant has no free run slot, the session becomes `queued` and goes on by itself when one frees.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: ToolCallParamsSchema },
  responses: {
    200: jsonContent(SessionSchema, "The session."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, call_id } = c.req.valid("param");
  const callId = requireToolCallId(call_id);
  return c.json(await decidingClient(c.env, c.var.principal, id).approve(callId, viewerOf(c.var.principal), auditContext(c)), 200);
};
