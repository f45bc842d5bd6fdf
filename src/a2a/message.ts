/**
 * What an A2A message asks of a context: its text parts are the next input, or its data parts
 * answer the calls an `input-required` task waits on (`{ tool_call_id, approved, reason? }`,
 * `{ tool_call_id, output }`). Pure.
 */
import { Role } from "@a2a-js/sdk";
import type { Message } from "@a2a-js/sdk";
import type { ApprovalAnswer, ToolOutputAnswer } from "../chat/request";
import { MAX_CHAT_ID_CHARS } from "../chat/request";
import { MAX_INPUT_CHARS } from "../session-config/bounds";

export type A2aAsk =
  | { kind: "input"; text: string }
  | { kind: "answers"; approvals: ApprovalAnswer[]; outputs: ToolOutputAnswer[] }
  | { kind: "invalid"; message: string };

/** A tool call id as the platform gives them out; longer is not one of ours. */
const MAX_CALL_ID_CHARS = 200;

export function readA2aMessage(message: Message | undefined): A2aAsk {
  if (!message) return { kind: "invalid", message: "params.message is required." };
  if (message.role !== Role.ROLE_USER) return { kind: "invalid", message: "params.message.role must be the user's (ROLE_USER)." };
  if (message.contextId.length > MAX_CHAT_ID_CHARS)
    return { kind: "invalid", message: `params.message.contextId is longer than ${MAX_CHAT_ID_CHARS} characters.` };
  const texts: string[] = [];
  const approvals: ApprovalAnswer[] = [];
  const outputs: ToolOutputAnswer[] = [];
  for (const [index, part] of message.parts.entries()) {
    const content = part.content;
    if (content?.$case === "text") texts.push(content.value);
    else if (content?.$case === "data") {
      const answer = readAnswer(content.value);
      if (typeof answer === "string") return { kind: "invalid", message: `params.message.parts[${index}].data: ${answer}` };
      if ("approved" in answer) approvals.push(answer);
      else outputs.push(answer);
    } else return { kind: "invalid", message: `params.message.parts[${index}]: only text and data parts are read.` };
  }
  if (approvals.length > 0 || outputs.length > 0) {
    if (texts.length > 0)
      return { kind: "invalid", message: "A message either answers waiting calls (data parts) or sends input (text parts), not both." };
    return { kind: "answers", approvals, outputs };
  }
  const text = texts.join("\n");
  if (text.trim() === "") return { kind: "invalid", message: "params.message has no text." };
  if (text.length > MAX_INPUT_CHARS)
    return { kind: "invalid", message: `params.message's text is longer than ${MAX_INPUT_CHARS} characters.` };
  return { kind: "input", text };
}

/** One answer, or why the data part is not one. */
function readAnswer(data: unknown): ApprovalAnswer | ToolOutputAnswer | string {
  if (typeof data !== "object" || data === null || Array.isArray(data)) return "must be an object.";
  const fields = data as Record<string, unknown>;
  const callId = fields.tool_call_id;
  if (typeof callId !== "string" || callId === "" || callId.length > MAX_CALL_ID_CHARS) return "tool_call_id must be a tool call's id.";
  if ("approved" in fields) {
    if (typeof fields.approved !== "boolean") return "approved must be true or false.";
    if (fields.reason !== undefined && (typeof fields.reason !== "string" || fields.reason.length > MAX_INPUT_CHARS))
      return "reason must be a string.";
    return { callId, approved: fields.approved, reason: (fields.reason as string | undefined) ?? null };
  }
  if ("output" in fields) {
    const output = typeof fields.output === "string" ? fields.output : JSON.stringify(fields.output ?? null);
    if (output.length > MAX_INPUT_CHARS) return `output is longer than ${MAX_INPUT_CHARS} characters.`;
    return { callId, output, isError: fields.is_error === true };
  }
  return "an answer has approved (with reason) or output.";
}
