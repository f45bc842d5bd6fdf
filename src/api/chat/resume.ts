/**
 * `GET /v1/agents/{agent_id}/chat/{id}/stream`: the transport's `reconnectToStream`. The turn under
 * way is rebuilt from the session's event log from its start, then followed live; with no turn
 * under way (or no such chat) 204, which the transport takes as nothing to resume.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { findChatSession } from "../../chat/chat-session";
import { TURN_ENDING_STATUSES } from "../../chat/ui-chunks";
import { turnStream, UI_MESSAGE_STREAM_HEADERS } from "../../chat/ui-stream";
import { latestEventId } from "../../sessions/follow";
import { actorOf } from "../actor";
import { knownAgentId } from "../agents/ids";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { ChatStreamParamsSchema, UiMessageStreamSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/chat/{id}/stream",
  operationId: "resumeAgentChat",
  summary: "Resume a chat's stream (AI SDK transport)",
  description:
    "What `DefaultChatTransport.reconnectToStream` asks: the turn under way, replayed from its start, then live. 204 when no turn is under way.",
  tags: ["Chat"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: ChatStreamParamsSchema },
  responses: {
    200: { description: "The turn under way as a UI message stream.", content: { "text/event-stream": { schema: UiMessageStreamSchema } } },
    204: { description: "No turn is under way: nothing to resume." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const params = c.req.valid("param");
  const agentId = knownAgentId(params.agent_id);
  const actor = actorOf(c);
  const follow = { principal: actor.principal, limits: actor.limits };
  const { client, session } = await findChatSession(actor, agentId, params.id);
  if (session === null || TURN_ENDING_STATUSES.includes(session.status)) return c.body(null, 204);
  const until = await latestEventId(client, follow);
  return new Response(turnStream({ client, ...follow }, session, 0, { replayUntil: until }), {
    headers: UI_MESSAGE_STREAM_HEADERS,
  }) as never;
};
