/** `GET /v1/sessions/{id}/messages`: the history, oldest first, paged by `seq`. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { MessageListQuerySchema, MessagePageSchema, SessionIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/messages",
  operationId: "listSessionMessages",
  summary: "List a session's messages",
  description: "Oldest first. `after` (or the previous page's `next_cursor` as `cursor`) skips messages up to that `seq`.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema, query: MessageListQuerySchema },
  responses: {
    200: jsonContent(MessagePageSchema, "A page of messages."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

/** Pure: the `seq` to start after; the cursor is the last `seq` of the previous page. */
export function messagesAfter(query: { after?: number; cursor?: string }): number {
  if (query.cursor !== undefined) return Number(query.cursor);
  return query.after ?? 0;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const query = c.req.valid("query");
  const { client } = await loadOwnedSession(c.env, c.var.principal, id);
  const page = await client.listMessages(messagesAfter(query), query.limit);
  return c.json(page, 200);
};
