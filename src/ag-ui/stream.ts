/**
 * An AG-UI run as a response body: the session's event log after the run's cursor, followed
 * through `followEvents` (the source the chat stream reads), translated by `AgUiRun` and encoded
 * as Server-Sent Events with `@ag-ui/encoder`.
 */
import type { EventEncoder } from "@ag-ui/encoder";
import { describeError, log } from "../log";
import { followEvents } from "../sessions/follow";
import type { Follow } from "../chat/ui-stream";
import type { AgUiEvent, AgUiRun } from "./events";

/** What an AG-UI server answers with; `X-Accel-Buffering` keeps a proxy from holding the stream back. */
export const AG_UI_STREAM_HEADERS = {
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  "X-Accel-Buffering": "no",
} as const;

const bytes = new TextEncoder();

function sseOf(encoder: EventEncoder): (events: AgUiEvent[]) => Uint8Array {
  return (events) => bytes.encode(events.map((event) => encoder.encodeSSE(event)).join(""));
}

/** A body that sends `events` and ends: a run over before the session moved (its answers refused, nothing left to run). */
export function fixedRunStream(encoder: EventEncoder, events: AgUiEvent[]): ReadableStream<Uint8Array> {
  const sse = sseOf(encoder);
  return new ReadableStream({
    start(controller) {
      controller.enqueue(sse(events));
      controller.close();
    },
  });
}

/** Streams the run: `RUN_STARTED` at once, then the frames after `cursor` until a status hands the run back. */
export function runStream(encoder: EventEncoder, follow: Follow, run: AgUiRun, cursor: number): ReadableStream<Uint8Array> {
  const sse = sseOf(encoder);
  const abort = new AbortController();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(sse(run.start()));
      try {
        for await (const frame of followEvents(follow.client, {
          principal: follow.principal,
          limits: follow.limits,
          cursor,
          signal: abort.signal,
        })) {
          const events = run.frame(frame);
          if (events.length > 0) controller.enqueue(sse(events));
          if (run.ended) break;
        }
        if (!run.ended) controller.enqueue(sse(run.fail("The session's event stream ended before the run did.", "stream_ended")));
      } catch (error) {
        if (abort.signal.aborted) return;
        log("error", "ag_ui_stream_failed", { error: describeError(error) });
        controller.enqueue(sse(run.fail("The run's events could not be read.", "stream_failed")));
      }
      controller.close();
    },
    cancel() {
      abort.abort();
    },
  });
}
