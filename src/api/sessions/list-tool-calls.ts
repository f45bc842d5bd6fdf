/** `GET /v1/sessions/{id}/tool-calls`: the session's tool calls in call order, with status and output, paged. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { SessionIdParamsSchema, ToolCallListQuerySchema, ToolCallPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/tool-calls",
  operationId: "listToolCalls",
  summary: "List a session's tool calls",
  description: "In the order the model made them, oldest first.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema, query: ToolCallListQuerySchema },
  responses: {
    200: jsonContent(ToolCallPageSchema, "A page of tool calls."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { cursor, limit } = c.req.valid("query");
  const { client } = await loadOwnedSession(c.env, c.var.principal, id);
  const page = await client.listToolCalls(cursor ?? null, limit);
  return c.json(page, 200);
};
