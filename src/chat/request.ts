/**
 * What a chat request of the AI SDK's `DefaultChatTransport` asks: the newest user message's
 * text (the history stays the platform's), and, in the last assistant message, the approval
 * responses (`addToolApprovalResponse`) and the client tools' outputs (`addToolOutput`). Pure.
 */
import { z } from "@hono/zod-openapi";
import { MAX_DENY_REASON_CHARS } from "../limits";
import { MAX_INPUT_CHARS } from "../sessions/object/input";

/** The chat id the page chose (`useChat({ id })`); it names one session per caller and agent. */
export const MAX_CHAT_ID_CHARS = 128;
/** A page resends its whole conversation each time; past this many messages it should start a new chat. */
export const MAX_CHAT_MESSAGES = 1_000;
/** Parts of one message; a text-and-tools answer never comes near. */
export const MAX_MESSAGE_PARTS = 1_000;
/** Ids the AI SDK makes (message, tool call, approval ids) and the names and states it sends. */
const MAX_ID_CHARS = 200;
/** A part's text: the platform takes no longer input; earlier answers in the history are shorter. */
const MAX_TEXT_CHARS = MAX_INPUT_CHARS;

const PartSchema = z
  .object({
    type: z.string().max(MAX_ID_CHARS),
    text: z.string().max(MAX_TEXT_CHARS).optional(),
    toolCallId: z.string().max(MAX_ID_CHARS).optional(),
    toolName: z.string().max(MAX_ID_CHARS).optional(),
    state: z.string().max(MAX_ID_CHARS).optional(),
    output: z.unknown().optional(),
    errorText: z.string().max(MAX_TEXT_CHARS).optional(),
    providerExecuted: z.boolean().optional(),
    approval: z
      .object({
        id: z.string().max(MAX_ID_CHARS),
        approved: z.boolean().optional(),
        reason: z.string().max(MAX_DENY_REASON_CHARS).optional(),
      })
      .passthrough()
      .optional(),
  })
  .passthrough();

export const UiMessageSchema = z
  .object({
    id: z.string().max(MAX_ID_CHARS),
    role: z.enum(["system", "user", "assistant"]),
    parts: z.array(PartSchema).max(MAX_MESSAGE_PARTS),
  })
  .passthrough()
  .openapi("ChatUIMessage", {
    description: "A `UIMessage` of the AI SDK; only the newest user message's text and the last assistant message's tool parts are read.",
  });

export const ChatRequestSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(MAX_CHAT_ID_CHARS)
      .openapi({ description: "The chat id; the same id always reaches the caller's same session of this agent." }),
    messages: z.array(UiMessageSchema).min(1).max(MAX_CHAT_MESSAGES),
    trigger: z.enum(["submit-message", "regenerate-message"]),
    messageId: z.string().max(MAX_ID_CHARS).optional(),
  })
  .passthrough()
  .openapi("ChatRequest", { description: "The body `DefaultChatTransport` sends (`id`, `messages`, `trigger`, `messageId`)." });

export type ChatRequest = z.infer<typeof ChatRequestSchema>;
type Part = z.infer<typeof PartSchema>;

export interface ApprovalAnswer {
  callId: string;
  approved: boolean;
  reason: string | null;
}

export interface ToolOutputAnswer {
  callId: string;
  output: string;
  isError: boolean;
}

export type ChatAsk =
  | { kind: "input"; text: string }
  | { kind: "answers"; approvals: ApprovalAnswer[]; outputs: ToolOutputAnswer[] }
  | { kind: "invalid"; path: string; message: string };

function isToolPart(part: Part): boolean {
  return part.type === "dynamic-tool" || part.type.startsWith("tool-");
}

/** What the request asks: a new input (its last message is the user's) or answers to the calls of the last answer. */
export function readChatRequest(body: ChatRequest): ChatAsk {
  if (body.trigger === "regenerate-message")
    return { kind: "invalid", path: "trigger", message: "Regenerating an answer is not supported: send a new message." };
  const index = body.messages.length - 1;
  const last = body.messages[index]!;
  if (last.role === "user") {
    const text = last.parts
      .filter((part) => part.type === "text" && typeof part.text === "string")
      .map((part) => part.text)
      .join("\n");
    if (text.trim() === "") return { kind: "invalid", path: `messages.${index}.parts`, message: "The newest user message has no text." };
    return { kind: "input", text };
  }
  if (last.role !== "assistant")
    return { kind: "invalid", path: `messages.${index}.role`, message: "The last message must be the user's or the assistant's." };
  const approvals: ApprovalAnswer[] = [];
  const outputs: ToolOutputAnswer[] = [];
  for (const part of last.parts) {
    if (!isToolPart(part) || part.toolCallId === undefined) continue;
    if (part.state === "approval-responded" && part.approval && typeof part.approval.approved === "boolean") {
      approvals.push({ callId: part.toolCallId, approved: part.approval.approved, reason: part.approval.reason ?? null });
    } else if (part.providerExecuted !== true && part.state === "output-available") {
      outputs.push({
        callId: part.toolCallId,
        output: typeof part.output === "string" ? part.output : JSON.stringify(part.output ?? null),
        isError: false,
      });
    } else if (part.providerExecuted !== true && part.state === "output-error") {
      outputs.push({ callId: part.toolCallId, output: part.errorText ?? "error", isError: true });
    }
  }
  if (approvals.length === 0 && outputs.length === 0)
    return { kind: "invalid", path: `messages.${index}`, message: "The last message answers no tool call: send a user message." };
  return { kind: "answers", approvals, outputs };
}
