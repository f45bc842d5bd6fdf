/**
 * The UI message stream of a chat turn as a response body: `data: <chunk JSON>` events, then
 * `data: [DONE]`. A new turn follows the session's events after the cursor taken before the
 * turn's message was applied; a resumed one replays the event log to the start of the turn going
 * on, from its input (`DefaultChatTransport` treats a resumed stream as a replay of the whole answer).
 */
import type { Principal } from "../auth/principal";
import type { Limits } from "../limits";
import { describeError, log } from "../log";
import type { SessionClient } from "../sessions/client";
import { followEvents } from "../sessions/follow";
import type { EventFrame } from "../sessions/object/events/frames";
import type { Message, Session } from "../session-config/types";
import { isInputMessage } from "../sessions/input-message";
import { ChatTurn, type UiChunk } from "./ui-chunks";

/** The headers `createUIMessageStreamResponse` of the `ai` package sets. */
export const UI_MESSAGE_STREAM_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  "X-Vercel-AI-UI-Message-Stream": "v1",
  "X-Accel-Buffering": "no",
} as const;

const encoder = new TextEncoder();

function sse(chunks: UiChunk[]): Uint8Array {
  return encoder.encode(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join(""));
}

const DONE = encoder.encode("data: [DONE]\n\n");

export interface Follow {
  client: SessionClient;
  principal: Principal;
  limits: Limits;
}

export function clientToolNames(session: Pick<Session, "tools">): Set<string> {
  return new Set(session.tools.filter((tool) => tool.type === "client").map((tool) => tool.name));
}

/** A body that sends `chunks` and ends; for a turn that is over before it began (every answer refused). */
export function fixedStream(chunks: UiChunk[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(sse(chunks));
      controller.enqueue(DONE);
      controller.close();
    },
  });
}

/**
 * Streams one turn: the frames after `cursor` until a status hands the turn back. `lead` goes
 * out right after `start` (the refusals of answers the request held). With `replayUntil`, the
 * frames up to that event id only rebuild the turn under way, which goes out whole once reached.
 */
export function turnStream(
  follow: Follow,
  session: Pick<Session, "tools">,
  cursor: number,
  options: { lead?: UiChunk[]; replayUntil?: number } = {},
): ReadableStream<Uint8Array> {
  const tools = clientToolNames(session);
  const abort = new AbortController();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      let turn = new ChatTurn(tools);
      let held: UiChunk[] | null = options.replayUntil !== undefined && options.replayUntil > cursor ? [] : null;
      // Otherwise `start` waits for the turn's first part, so that it can carry the answer's id (ui-chunks.ts).
      if (held === null && options.lead !== undefined && options.lead.length > 0)
        controller.enqueue(sse([...turn.start(), ...options.lead]));
      try {
        for await (const frame of followEvents(follow.client, {
          principal: follow.principal,
          limits: follow.limits,
          cursor,
          signal: abort.signal,
        })) {
          if (held !== null) {
            // Replaying the whole answer under way, as the transport expects of a resume: an input
            // begins a new answer; what follows a hand-back (the decision on a call, the run going
            // again) goes on in the same one.
            if (frame.type === "message" && isInputMessage(frame.data as Message)) {
              turn = new ChatTurn(tools);
              held = [];
            } else if (turn.ended) {
              turn = new ChatTurn(tools);
            }
            held.push(...turn.frame(frame));
            if (reached(frame, options.replayUntil!)) {
              controller.enqueue(sse(held));
              held = null;
            }
          } else {
            const chunks = turn.frame(frame);
            if (chunks.length > 0) controller.enqueue(sse(chunks));
          }
          if (held === null && turn.ended) break;
        }
        if (held !== null) controller.enqueue(sse(held));
        if (!turn.ended) controller.enqueue(sse(turn.fail("The session's event stream ended before the turn did.")));
      } catch (error) {
        if (abort.signal.aborted) return;
        log("error", "chat_stream_failed", { error: describeError(error) });
        controller.enqueue(sse(turn.fail("The turn's events could not be read; reconnect to resume.")));
      }
      controller.enqueue(DONE);
      controller.close();
    },
    cancel() {
      abort.abort();
    },
  });
}

function reached(frame: EventFrame, until: number): boolean {
  // A snapshot comes only when the log no longer reaches back to the cursor: what it had is all there is.
  return (typeof frame.id === "number" && frame.id >= until) || frame.type === "end" || frame.type === "snapshot";
}
