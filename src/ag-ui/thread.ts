/**
 * An AG-UI run on its thread: `threadId` names the caller's session of the agent exactly as a
 * chat id does (src/chat/chat-session.ts: the same principal and id reach the same session through
 * the chat transport, A2A and AG-UI). A user message starts the thread's next run (its first
 * creates the session, with the tools the input declares as client tools); `resume` entries
 * and trailing tool messages answer the calls the last run left waiting.
 */
import type { Actor } from "../sessions/actor";
import { ApiError } from "../problems";
import { latestEventId } from "../sessions/follow";
import { waitingCalls } from "../sessions/waiting-calls";
import type { Session } from "../session-config/types";
import { answerCalls, continueChat, findChatSession, startChat } from "../chat/chat-session";
import { TURN_ENDING_STATUSES } from "../chat/ui-chunks";
import { clientToolNames } from "../chat/ui-stream";
import { AgUiRun } from "./events";
import type { AgUiAsk, ClientTool } from "./input";
import type { AgUiSdk } from "./load-sdk";
import { fixedRunStream, runStream } from "./stream";

export interface ThreadRun {
  threadId: string;
  runId: string;
  ask: AgUiAsk;
  tools: ClientTool[];
}

/** The run's event stream; a thread that is not the caller's is 404, a run already going 409 (as for a chat). */
export async function runOnThread(
  { encoder }: Pick<AgUiSdk, "encoder">,
  actor: Actor,
  agentId: string,
  request: ThreadRun,
): Promise<ReadableStream<Uint8Array>> {
  const { threadId, runId, ask, tools } = request;
  const follow = { principal: actor.principal, limits: actor.limits };
  const { client, session } = await findChatSession(actor, agentId, threadId);

  if (session === null) {
    if (ask.kind !== "input") {
      const run = new AgUiRun(threadId, runId, new Set());
      return fixedRunStream(encoder, run.fail("This thread has no call waiting for an answer: send a user message.", "nothing_waits"));
    }
    const started = await startChat(actor, agentId, threadId, ask.text, { clientTools: tools });
    return runStream(encoder, { client, ...follow }, new AgUiRun(threadId, runId, clientToolNames(started)), 0);
  }
  requireKnownTools(session, tools);
  const run = new AgUiRun(threadId, runId, clientToolNames(session));
  const cursor = await latestEventId(client, follow);
  if (ask.kind === "input") {
    await continueChat(actor, session, ask.text);
    return runStream(encoder, { client, ...follow }, run, cursor);
  }
  const { session: after, refused } = await answerCalls(client, actor, ask.approvals, ask.outputs);
  if (refused.length > 0) return fixedRunStream(encoder, run.fail(refused.join("; "), "call_not_waiting"));
  if (after === null) return fixedRunStream(encoder, run.fail("No call of this thread waits for these answers.", "call_not_waiting"));
  // The session still waits for other answers: the run is handed back at once, naming them.
  if (TURN_ENDING_STATUSES.includes(after.status)) {
    run.waitingAlready(await waitingCalls(client));
    return fixedRunStream(encoder, run.end({ status: after.status, stop_reason: after.stop_reason, error: after.error }));
  }
  return runStream(encoder, { client, ...follow }, run, cursor);
}

/**
 * A thread's client tools are those its first run declared (they are part of its session); a
 * later run that declares another is refused rather than run without it, so the client knows.
 */
function requireKnownTools(session: Session, tools: readonly ClientTool[]): void {
  const known = clientToolNames(session);
  const errors = tools.flatMap((tool, index) =>
    known.has(tool.name)
      ? []
      : [
          {
            path: `body.tools.${index}.name`,
            message: "A thread's client tools are the ones its first run declared: start a new thread to offer this one.",
          },
        ],
  );
  if (errors.length > 0) throw new ApiError("validation_failed", undefined, { errors });
}
