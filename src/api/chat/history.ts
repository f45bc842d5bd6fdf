/**
 * `GET /v1/agents/{agent_id}/chat/{id}/messages`: the chat's conversation as the AI SDK's
 * `UIMessage`s, so a reloaded `useChat({ messages })` page shows it. The chat id reaches only the
 * caller's own session of this agent; any other (or none) is 404.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { findChatSession } from "../../chat/chat-session";
import { readChatHistory } from "../../chat/ui-history";
import { clientToolNames } from "../../chat/ui-stream";
import { SESSION_NOT_FOUND } from "../../sessions/client";
import { actorOf } from "../actor";
import { knownAgentId } from "../agents/ids";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { ChatHistorySchema, ChatStreamParamsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/chat/{id}/messages",
  operationId: "getAgentChatMessages",
  summary: "A chat's messages (AI SDK `UIMessage`s)",
  description:
    "The conversation of the caller's chat with this agent, for `useChat({ messages })` after a reload: the same messages, parts and ids the chat's streams gave. " +
    "A turn under way shows what is saved so far; `useChat({ resume: true })` then replays it. Another caller's chat id, or one never used, is 404.",
  tags: ["Chat"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: ChatStreamParamsSchema },
  responses: {
    200: jsonContent(ChatHistorySchema, "The conversation, oldest first."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const params = c.req.valid("param");
  const agentId = knownAgentId(params.agent_id);
  const { client, session } = await findChatSession(actorOf(c), agentId, params.id);
  if (session === null) throw new ApiError("not_found", SESSION_NOT_FOUND);
  const messages = await readChatHistory(client, clientToolNames(session));
  // The parts are JSON the fold built from stored JSON; the schema types them only loosely.
  return c.json({ messages } as unknown as z.infer<typeof ChatHistorySchema>, 200);
};
