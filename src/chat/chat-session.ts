/**
 * The session a chat id names: one per caller, agent and chat id, its id derived from the three
 * (so the same id always reaches the same session, and a caller's id never reaches another
 * caller's session), created with the chat's first message and `metadata.chat_id`.
 */
import { AgentClient } from "../agents/client";
import { servingRef } from "../agents/serving";
import type { Principal } from "../auth/principal";
import { ApiError } from "../problems";
import { base64url } from "../shared/base64";
import type { Actor } from "../sessions/actor";
import { addMessage } from "../sessions/add-message";
import { SESSION_NOT_FOUND, SessionClient } from "../sessions/client";
import { createSession } from "../sessions/create";
import { SESSION_ID_PREFIX } from "../session-config/ids";
import type { Session, ToolSpec } from "../session-config/types";
import { canAccessSession, viewerOf } from "../sessions/access";
import type { ApprovalAnswer, ToolOutputAnswer } from "./request";

/** The session of `chatId` for this caller and agent: tenant and subject are part of the name, so no other caller's id derives it. */
export async function chatSessionId(principal: Pick<Principal, "tenantId" | "subject">, agentId: string, chatId: string): Promise<string> {
  const name = JSON.stringify(["chat", principal.tenantId, principal.subject, agentId, chatId]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(name));
  return SESSION_ID_PREFIX + base64url(new Uint8Array(digest)).slice(0, 32);
}

export interface ChatSession {
  client: SessionClient;
  session: Session | null;
}

/** The chat's session when it exists; a session that is not the caller's chat of this agent is answered as missing. */
export async function findChatSession(actor: Actor, agentId: string, chatId: string): Promise<ChatSession> {
  const { env, principal } = actor;
  const client = new SessionClient(env, principal.tenantId, await chatSessionId(principal, agentId, chatId));
  const session = await client.find();
  // The access rule every session route applies, then what makes it this caller's chat of this agent.
  if (session && (!canAccessSession(principal, session) || session.created_by !== principal.subject || session.agent?.id !== agentId))
    throw new ApiError("not_found", SESSION_NOT_FOUND);
  return { client, session };
}

/**
 * Starts the chat: its session from the agent's serving version, with the first message as input;
 * `notifyUrl`: where its status notifications go; `clientTools`: the caller's own, beside the
 * agent's (an AG-UI thread declares them).
 */
export async function startChat(
  actor: Actor,
  agentId: string,
  chatId: string,
  input: string,
  options: { notifyUrl?: string | null; clientTools?: Extract<ToolSpec, { type: "client" }>[] } = {},
): Promise<Session> {
  const agent = await new AgentClient(actor.env, actor.principal.tenantId).get(agentId);
  const id = await chatSessionId(actor.principal, agentId, chatId);
  const notify = options.notifyUrl == null ? {} : { notify_url: options.notifyUrl };
  return createSession(actor, { agent: servingRef(agent), input, metadata: { chat_id: chatId }, ...notify }, id, options.clientTools ?? []);
}

/** The newest user message starts the next run; one is already going → 409. */
export async function continueChat(actor: Actor, session: Session, input: string): Promise<Session> {
  return (await addMessage(actor, session.id, { input, if_running: "reject" })).session;
}

export interface AnswerOutcome {
  /** The session after the last answer applied, or null when none was. */
  session: Session | null;
  /** One sentence per answer refused (a call that does not wait), shown in the stream as `error` parts. */
  refused: string[];
}

/**
 * Applies the approval responses and client tool outputs of the last assistant message. A call
 * that no longer waits for approval is refused (409 as an `error` part); an output the call
 * already has is skipped, since the page sends back every output it holds. Each decision is
 * audited with the actor's request, as the REST routes' are.
 */
export async function answerCalls(
  client: SessionClient,
  actor: Pick<Actor, "principal" | "audit">,
  approvals: ApprovalAnswer[],
  outputs: ToolOutputAnswer[],
): Promise<AnswerOutcome> {
  const viewer = viewerOf(actor.principal);
  const by = actor.audit ?? null;
  let session: Session | null = null;
  const refused: string[] = [];
  for (const answer of approvals) {
    try {
      session = answer.approved
        ? await client.approve(answer.callId, viewer, by)
        : await client.deny(answer.callId, answer.reason, viewer, by);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 409 && error.status !== 404)) throw error;
      refused.push(`409: tool call ${answer.callId}: ${error.detail ?? error.title}`);
    }
  }
  for (const answer of outputs) {
    try {
      session = await client.submitToolOutput(answer.callId, answer.output, answer.isError, viewer);
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 409 && error.status !== 404)) throw error;
    }
  }
  return { session, refused };
}
