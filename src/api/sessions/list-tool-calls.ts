/** `GET /v1/sessions/{id}/tool-calls`: every tool call of the session, oldest first, with status and output. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AgentResult, ToolCall } from "../../agents/types";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "./access";
import { agentValue } from "./agent-result";
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
  const calls = agentValue((await agent.listToolCalls()) as AgentResult<ToolCall[]>);
  return c.json({ data: calls, next_cursor: null }, 200);
};
