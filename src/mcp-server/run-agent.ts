/**
 * One `tools/call`: a session of the agent's serving version with the call's input, followed
 * through its events to its end (or to a stop where it waits for a person or a client), and the
 * answer as an MCP tool result. The session is an ordinary one: listed, limited and audited like
 * any other; its id is derived from the MCP session and the JSON-RPC request id, so a
 * `notifications/cancelled` for the request finds it.
 */
import type { Agent } from "../agents/types";
import { servingRef } from "../agents/serving";
import type { Principal } from "../auth/principal";
import { base64url } from "../shared/base64";
import type { Actor } from "../sessions/actor";
import { SessionClient } from "../sessions/client";
import { createSession } from "../sessions/create";
import { followEvents } from "../sessions/follow";
import { newSessionId, SESSION_ID_PREFIX } from "../session-config/ids";
import type { Message, Session, SessionStatus } from "../session-config/types";
import type { StatusData, ToolCallEventData } from "../sessions/object/events/frames";
import { toolOutputSchema } from "./tools";

/** Statuses a call's session stops at without an answer: a person (or the client of a `client` tool) must act through the REST API. */
export const WAITING_STATUSES: readonly SessionStatus[] = ["waiting_approval", "waiting_tool_output", "waiting_budget", "paused"];
const FINAL: readonly SessionStatus[] = ["done", "failed", "cancelled"];

/** The result of `tools/call` as MCP has it (`CallToolResult`). */
export interface ToolResult {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Progress {
  (progress: number, message: string): Promise<void>;
}

/**
 * The session of a call: derived from the MCP session, the request and the caller, so the
 * cancellation (which names only the request) reaches it; a client without an MCP session gets
 * a fresh id (and its cancellation, naming nothing, cannot).
 */
export async function callSessionId(
  principal: Pick<Principal, "tenantId" | "subject">,
  mcpSessionId: string | null,
  requestId: string | number,
): Promise<string | null> {
  if (mcpSessionId === null) return null;
  const name = JSON.stringify(["mcp", principal.tenantId, principal.subject, mcpSessionId, typeof requestId, String(requestId)]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name));
  return SESSION_ID_PREFIX + base64url(new Uint8Array(digest)).slice(0, 32);
}

export interface RunCall {
  actor: Actor;
  agent: Agent;
  input: string;
  sessionId: string | null;
  progress: Progress | null;
  signal: AbortSignal;
}

export async function runAgentCall(call: RunCall): Promise<ToolResult> {
  const { actor, agent } = call;
  const id = call.sessionId ?? newSessionId();
  const client = new SessionClient(actor.env, actor.principal.tenantId, id);
  await createSession(actor, { agent: servingRef(agent), input: call.input, metadata: { mcp_tool: agent.name } }, id);
  let steps = 0;
  let answer = "";
  let last: StatusData | null = null;
  const waiting = new Map<string, ToolCallEventData>();
  for await (const frame of followEvents(client, { principal: actor.principal, limits: actor.limits, cursor: 0, signal: call.signal })) {
    if (frame.type === "message") {
      const message = frame.data as Message;
      if (message.role !== "assistant") continue;
      answer = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      steps += 1;
      await call.progress?.(steps, `step ${steps} done`);
    } else if (frame.type === "tool_call" || frame.type === "tool_result") {
      const toolCall = frame.data as ToolCallEventData;
      if (toolCall.status === "waiting_approval" || toolCall.status === "waiting_tool_output") waiting.set(toolCall.id, toolCall);
      else waiting.delete(toolCall.id);
      if (frame.type === "tool_call" && toolCall.status === "running") await call.progress?.(steps, `calling ${toolCall.name}`);
    } else if (frame.type === "status" || frame.type === "end") {
      last = frame.data as StatusData;
      if (FINAL.includes(last.status) || WAITING_STATUSES.includes(last.status)) break;
    }
  }
  if (last === null) return errorResult(id, "The session's events ended before the session did.");
  if (WAITING_STATUSES.includes(last.status)) return waitingResult(id, last.status, [...waiting.values()]);
  if (last.status === "cancelled") return errorResult(id, "The session was cancelled.");
  if (last.status === "failed") return errorResult(id, `The session failed: ${last.error ?? "no reason given"}.`);
  const schema = toolOutputSchema(agent);
  if (schema === null) return { content: [{ type: "text", text: answer }], _meta: { session_id: id } };
  const session = (await client.find()) as Session | null;
  const output = session?.output as Record<string, unknown> | null | undefined;
  if (output === null || output === undefined || typeof output !== "object")
    return errorResult(id, "The session ended without a structured answer.");
  return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output, _meta: { session_id: id } };
}

function errorResult(sessionId: string, text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true, _meta: { session_id: sessionId } };
}

/**
 * A session that waits for a person: not an answer, so `isError` (a client then does not ask for
 * the structured answer an output schema promises); the text and `_meta` name the session and what
 * it waits for, to be finished through the REST API.
 */
export function waitingResult(sessionId: string, status: SessionStatus, calls: ToolCallEventData[]): ToolResult {
  const waitingFor = calls.map((call) => ({ tool_call_id: call.id, name: call.name, status: call.status, input: call.input }));
  const what =
    waitingFor.length === 0
      ? `its status is ${status}`
      : waitingFor
          .map(
            (call) =>
              `${call.status === "waiting_approval" ? "approval of" : "the output of"} ${call.name} (tool call ${call.tool_call_id})`,
          )
          .join(", ");
  return {
    content: [
      {
        type: "text",
        text:
          status === "waiting_budget"
            ? `Session ${sessionId} reached a budget and waits until it is raised (PATCH /v1/sessions/${sessionId} by a tenant admin) or a daily budget renews; the session then goes on.`
            : `Session ${sessionId} waits for ${what}. Decide it through the REST API (POST /v1/sessions/${sessionId}/tool-calls/{call_id}/approve, /deny or /output); the session then goes on.`,
      },
    ],
    isError: true,
    _meta: { session_id: sessionId, status, waiting_for: waitingFor },
  };
}
