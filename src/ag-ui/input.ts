/**
 * What an AG-UI `RunAgentInput` asks of its thread, read with the schema `@ag-ui/core` exports:
 * a new user message, or the answers to the calls the last run left waiting (`resume` entries for
 * approvals, trailing tool messages for client tools), and the tools it declares as client tools. Pure.
 * The platform's own bounds (ids, counts) are the route's schema's (src/api/ag-ui/schemas.ts).
 */
import type { RunAgentInput } from "@ag-ui/core";
import type { z } from "zod";
import type { ApprovalAnswer, ToolOutputAnswer } from "../chat/request";
import { MAX_DENY_REASON_CHARS } from "../limits";
import type { FieldError } from "../problems";
import { ClientToolSchema } from "../session-config/tool-schemas";
import type { ToolSpec } from "../session-config/types";
import type { AgUiSdk } from "./load-sdk";

/** The client's own ids (run, message, tool call, interrupt); a uuid is 36. */
export const MAX_AG_UI_ID_CHARS = 200;
/** Resume entries of one input: one per call waiting, and a run stops at far fewer. */
export const MAX_RESUME_ENTRIES = 100;

export type ClientTool = Extract<ToolSpec, { type: "client" }>;

export type AgUiAsk = { kind: "input"; text: string } | { kind: "answers"; approvals: ApprovalAnswer[]; outputs: ToolOutputAnswer[] };

export type ReadRunInput =
  | { ok: true; input: RunAgentInput; ask: AgUiAsk; tools: ClientTool[] }
  /** `issues`: the schema's own (paths inside the body); `errors`: the platform's checks, as `body.…` field errors. */
  | { ok: false; issues: readonly z.core.$ZodIssue[]; errors: FieldError[] };

type Content = string | readonly { type: string; text?: string }[];

/** The text of a message's content: the string, or its text parts joined. */
function textOf(content: Content): string {
  if (typeof content === "string") return content;
  return content.flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("\n");
}

function fail(errors: FieldError[]): ReadRunInput {
  return { ok: false, issues: [], errors };
}

/** `schema`: `@ag-ui/core`'s own `RunAgentInputSchema` (loaded on first use, src/ag-ui/load-sdk.ts). */
export function readRunInput(schema: AgUiSdk["RunAgentInputSchema"], body: unknown): ReadRunInput {
  const parsed = schema.safeParse(body);
  if (!parsed.success) return { ok: false, issues: parsed.error.issues, errors: [] };
  const input = parsed.data as unknown as RunAgentInput;
  const tools: ClientTool[] = [];
  const toolErrors: FieldError[] = [];
  input.tools.forEach((tool, index) => {
    const spec = {
      type: "client",
      name: tool.name,
      // The platform asks every tool for a description; an empty one reads as its name.
      description: tool.description === "" ? tool.name : tool.description,
      input_schema: tool.parameters ?? { type: "object", properties: {} },
    };
    const checked = ClientToolSchema.safeParse(spec);
    if (checked.success) tools.push(checked.data as ClientTool);
    else
      for (const issue of checked.error.issues) {
        const field = issue.path[0] === "input_schema" ? "parameters" : String(issue.path[0] ?? "");
        toolErrors.push({ path: ["body", "tools", String(index), field].filter((part) => part !== "").join("."), message: issue.message });
      }
  });
  if (toolErrors.length > 0) return fail(toolErrors);

  const ask = askOf(input);
  if ("path" in ask) return fail([ask]);
  return { ok: true, input, ask, tools };
}

/** What the run asks: answers when it carries any, else the newest user message. */
function askOf(input: RunAgentInput): AgUiAsk | FieldError {
  const approvals: ApprovalAnswer[] = [];
  const errors: FieldError[] = [];
  (input.resume ?? []).forEach((entry, index) => {
    const decision = approvalOf(entry.status, entry.payload);
    if (decision !== null && (decision.reason?.length ?? 0) > MAX_DENY_REASON_CHARS)
      errors.push({ path: `body.resume.${index}.payload.reason`, message: `A reason is at most ${MAX_DENY_REASON_CHARS} characters.` });
    else if (decision === null)
      errors.push({
        path: `body.resume.${index}.payload`,
        message: 'A resolved approval\'s payload is `{ "approved": true | false, "reason"?: string }` (or a boolean).',
      });
    else approvals.push({ callId: entry.interruptId, ...decision });
  });
  if (errors.length > 0) return errors[0]!;
  // Tool messages at the end answer the client tools the last run left waiting; the page sends its whole history each time.
  const outputs: ToolOutputAnswer[] = [];
  for (let i = input.messages.length - 1; i >= 0; i--) {
    const message = input.messages[i]!;
    if (message.role !== "tool") break;
    const isError = typeof message.error === "string";
    outputs.unshift({ callId: message.toolCallId, output: isError ? message.error! : textOf(message.content as Content), isError });
  }
  if (approvals.length > 0 || outputs.length > 0) return { kind: "answers", approvals, outputs };
  const index = input.messages.length - 1;
  const last = input.messages[index];
  if (last === undefined) return { path: "body.messages", message: "No message: the last one must be the user's." };
  if (last.role !== "user")
    return {
      path: `body.messages.${index}.role`,
      message: "The last message must be the user's, or a tool message answering a call (or `resume` answering an interrupt).",
    };
  const text = textOf(last.content as Content);
  if (text.trim() === "") return { path: `body.messages.${index}.content`, message: "The newest user message has no text." };
  return { kind: "input", text };
}

/** `cancelled` denies the call; `resolved` carries the decision. */
function approvalOf(status: "resolved" | "cancelled", payload: unknown): { approved: boolean; reason: string | null } | null {
  if (status === "cancelled") return { approved: false, reason: null };
  if (typeof payload === "boolean") return { approved: payload, reason: null };
  if (typeof payload !== "object" || payload === null) return null;
  const { approved, reason } = payload as { approved?: unknown; reason?: unknown };
  if (typeof approved !== "boolean" || (reason !== undefined && typeof reason !== "string")) return null;
  return { approved, reason: typeof reason === "string" ? reason : null };
}
