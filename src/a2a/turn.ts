/**
 * A message sent to a context, applied: text starts the context's next run (its first creates the
 * session, as a chat's does), data parts answer the calls the named task waits on, through the
 * chat's own answering. What follows is read from the event log after the cursor taken here.
 */
import type { SendMessageRequest } from "@a2a-js/sdk";
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { answerCalls, continueChat, findChatSession, startChat } from "../chat/chat-session";
import type { Actor } from "../sessions/actor";
import type { SessionClient } from "../sessions/client";
import { latestEventId } from "../sessions/follow";
import { waitingCalls, waitsForAnswer } from "../sessions/waiting-calls";
import { readA2aMessage } from "./message";
import { refusePushCredentials, requireSamePushUrl } from "./push";
import { readRun } from "./reads";
import { isFinalState, parseTaskId, taskState } from "./tasks";

export interface Turn {
  client: SessionClient;
  contextId: string;
  /** The last event id before the message applied. */
  cursor: number;
  /** The run answered; null for a new run, whose input the log shows. */
  inputSeq: number | null;
}

export async function openTurn(actor: Actor, agentId: string, params: SendMessageRequest): Promise<Turn> {
  const ask = readA2aMessage(params.message);
  if (ask.kind === "invalid") throw new RequestMalformedError({ message: ask.message });
  const message = params.message!;
  const named = message.taskId === "" ? null : parseTaskId(message.taskId);
  if (message.taskId !== "" && (named === null || (message.contextId !== "" && named.contextId !== message.contextId)))
    throw new TaskNotFoundError({ message: `Task not found: ${message.taskId}` });
  const contextId = named?.contextId ?? (message.contextId === "" ? crypto.randomUUID() : message.contextId);
  refusePushCredentials(params.configuration?.taskPushNotificationConfig);
  const pushUrl = params.configuration?.taskPushNotificationConfig?.url || null;
  const { client, session } = await findChatSession(actor, agentId, contextId);

  if (session === null) {
    if (named !== null) throw new TaskNotFoundError({ message: `Task not found: ${message.taskId}` });
    if (ask.kind !== "input") throw new RequestMalformedError({ message: "This context has no call waiting for an answer: send text." });
    await startChat(actor, agentId, contextId, ask.text, { notifyUrl: pushUrl });
    return { client, contextId, cursor: 0, inputSeq: null };
  }
  if (pushUrl !== null) requireSamePushUrl(actor, session, pushUrl);
  const follow = { principal: actor.principal, limits: actor.limits };
  const cursor = await latestEventId(client, follow);
  if (ask.kind === "input") {
    if (waitsForAnswer(session.status))
      throw new UnsupportedOperationError({
        message:
          "A task of this context waits for answers to its calls: send data parts { tool_call_id, approved } or { tool_call_id, output }.",
      });
    // Text starts a new task; naming one that is over would read as continuing it, so it is refused.
    if (named !== null && isFinalState(taskState(session.status)))
      throw new UnsupportedOperationError({
        message: `Task ${message.taskId} is over and takes no more messages: send the next one with its contextId and no taskId.`,
      });
    await continueChat(actor, session, ask.text);
    return { client, contextId, cursor, inputSeq: null };
  }
  if (named === null) throw new RequestMalformedError({ message: "A message answering calls names their task (taskId)." });
  // The calls waiting are the newest run's: an answer naming an earlier task would decide them under its id.
  const run = await readRun(client, named.inputSeq);
  if (run === null) throw new TaskNotFoundError({ message: `Task not found: ${message.taskId}` });
  if (run.superseded)
    throw new RequestMalformedError({ message: `Task ${message.taskId} is over: a later task of this context holds the waiting calls.` });
  // An answer for a call that does not wait is refused before any is applied, so none is half done.
  const waiting = new Map((await waitingCalls(client)).map((call) => [call.id, call.status]));
  for (const answer of ask.approvals)
    if (waiting.get(answer.callId) !== "waiting_approval")
      throw new RequestMalformedError({ message: `Tool call ${answer.callId} does not wait for approval.` });
  for (const answer of ask.outputs)
    if (waiting.get(answer.callId) !== "waiting_tool_output")
      throw new RequestMalformedError({ message: `Tool call ${answer.callId} does not wait for a client's output.` });
  const { refused } = await answerCalls(client, actor, ask.approvals, ask.outputs);
  if (refused.length > 0) throw new RequestMalformedError({ message: refused.join(" ") });
  return { client, contextId, cursor, inputSeq: named.inputSeq };
}
