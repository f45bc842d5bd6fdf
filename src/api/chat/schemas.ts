/** Schemas of the chat routes (`POST /v1/agents/{agent_id}/chat`, `GET …/chat/{id}/stream`, `GET …/chat/{id}/messages`). */
import { z } from "@hono/zod-openapi";
import { MAX_CHAT_ID_CHARS, UiMessageSchema } from "../../chat/request";
import { AgentIdParamsSchema } from "../agents/schemas";

export { ChatRequestSchema } from "../../chat/request";

export const ChatStreamParamsSchema = AgentIdParamsSchema.extend({
  id: z
    .string()
    .min(1)
    .max(MAX_CHAT_ID_CHARS)
    .openapi({ param: { name: "id", in: "path" }, description: "The chat id.", example: "chat-1" }),
});

export const UiMessageStreamSchema = z.string().openapi("UIMessageStream", {
  description:
    "The AI SDK's UI message stream (`ai` v7, header `x-vercel-ai-ui-message-stream: v1`): `data:` events of the parts `start` (with the answer's `messageId` when a new message began the turn), `start-step`, " +
    "`text-start`/`text-delta`/`text-end`, `reasoning-start`/`reasoning-delta`/`reasoning-end`, `tool-input-start`/`tool-input-available`, " +
    "`tool-approval-request`, `tool-approval-response`, `tool-output-available`/`tool-output-error`/`tool-output-denied`, `finish-step`, `finish`, `error`, `abort`, then `data: [DONE]`.",
});

export const ChatHistorySchema = z
  .object({
    messages: z.array(UiMessageSchema).openapi({
      description:
        "Oldest first: each input a `user` message (`user-<seq>`), the answer to it one `assistant` message (`answer-<seq>`, the id its stream's `start` gave), " +
        "with `step-start`, `text`, `reasoning` and `dynamic-tool` parts in the states the live stream left them (`input-available`, `approval-requested`, " +
        "`approval-responded`, `output-available`, `output-error`, `output-denied`; an approval's id is the call's).",
    }),
  })
  .openapi("ChatHistory", { description: "A chat's conversation as AI SDK `UIMessage`s, for `useChat({ messages })`." });
