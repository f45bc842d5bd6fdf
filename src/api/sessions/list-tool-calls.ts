/** `GET /v1/sessions/{id}/tool-calls`: every tool call of the session, oldest first, with status and output. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "./access";
import { SessionIdParamsSchema, ToolCallPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/tool-calls",
  operationId: "listToolCalls",
  summary: "List a session's tool calls",
  description: "All calls in one page (`next_cursor` is always null): a session's calls are bounded by its step and token limits.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    200: jsonContent(ToolCallPageSchema, "The tool calls."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { agent } = await loadOwnedSession(c.env, c.var.principal, id);
  const calls = await agent.listToolCalls();
  return c.json({ data: calls, next_cursor: null }, 200);
};
