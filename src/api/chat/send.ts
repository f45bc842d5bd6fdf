/**
 * `POST /v1/agents/{agent_id}/chat`: a turn of the AI SDK's chat transport. The newest user message
 * starts the chat's next run (or its first, creating its session); a last assistant message
 * instead answers the calls that wait (approvals, client tool outputs). Answered with the UI
 * message stream of the turn.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { answerCalls, continueChat, findChatSession, startChat } from "../../chat/chat-session";
import { readChatRequest } from "../../chat/request";
import { TURN_ENDING_STATUSES, finishReason } from "../../chat/ui-chunks";
import { fixedStream, turnStream, UI_MESSAGE_STREAM_HEADERS } from "../../chat/ui-stream";
import { latestEventId } from "../../sessions/follow";
import { actorOf } from "../actor";
import { knownAgentId } from "../agents/ids";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { AgentIdParamsSchema } from "../agents/schemas";
import { ChatRequestSchema, UiMessageStreamSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/chat",
  operationId: "chatWithAgent",
  summary: "Chat with an agent (AI SDK transport)",
  description:
    "Speaks `DefaultChatTransport` of the AI SDK (`useChat`). The chat `id` names the caller's session of this agent (created on first use with `metadata.chat_id`, " +
    "from the agent's `production` alias, else its latest version). Only the newest user message is read as input: the history is the session's. " +
    "When the last message is the assistant's, its approval responses approve or deny the calls that wait, and its client tool outputs become their outputs; " +
    "an approval for a call that does not wait is a `409` `error` part in the stream. 409 when a run is already going.",
  tags: ["Chat"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    params: AgentIdParamsSchema,
    body: jsonBody(ChatRequestSchema, {
      id: "chat-1",
      messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "What time is it?" }] }],
      trigger: "submit-message",
    }),
  },
  responses: {
    200: { description: "The turn as a UI message stream.", content: { "text/event-stream": { schema: UiMessageStreamSchema } } },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const agentId = knownAgentId(c.req.valid("param").agent_id);
  const body = c.req.valid("json");
  const ask = readChatRequest(body);
  if (ask.kind === "invalid")
    throw new ApiError("validation_failed", undefined, { errors: [{ path: `body.${ask.path}`, message: ask.message }] });
  const actor = actorOf(c);
  const follow = { principal: actor.principal, limits: actor.limits };
  const { client, session } = await findChatSession(actor, agentId, body.id);
  const headers = UI_MESSAGE_STREAM_HEADERS;

  if (session === null) {
    if (ask.kind !== "input") throw new ApiError("conflict", "This chat has no call waiting for an answer: send a user message.");
    const started = await startChat(actor, agentId, body.id, ask.text);
    return new Response(turnStream({ client, ...follow }, started, 0), { headers }) as never;
  }
  const cursor = await latestEventId(client, follow);
  if (ask.kind === "input") {
    await continueChat(actor, session, ask.text);
    return new Response(turnStream({ client, ...follow }, session, cursor), { headers }) as never;
  }
  const { session: after, refused } = await answerCalls(client, actor, ask.approvals, ask.outputs);
  const lead = refused.map((errorText) => ({ type: "error", errorText }));
  // Nothing applied, or the session still waits for other answers: the turn is handed back at once.
  if (after === null || TURN_ENDING_STATUSES.includes(after.status)) {
    const status = after ?? session;
    return new Response(
      fixedStream([{ type: "start" }, ...lead, { type: "finish", finishReason: finishReason(status.status, status.stop_reason) }]),
      { headers },
    ) as never;
  }
  return new Response(turnStream({ client, ...follow }, session, cursor, { lead }), { headers }) as never;
};
