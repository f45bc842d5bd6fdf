/**
 * Follows a session's events from inside the gateway, as a watcher of `GET …/events` would: the
 * same stream the session object serves (its replay after a cursor, then live frames), read as
 * Server-Sent Events. The chat and MCP routes build their own protocols on it, so both see the
 * platform's event log exactly as every other watcher does.
 */
import { createParser } from "eventsource-parser";
import { type Principal, standingKeyOf } from "../auth/principal";
import type { Limits } from "../limits";
import { streamDeadline } from "./object/events/streams";
import type { EventFrame } from "./object/events/frames";
import type { SessionClient } from "./client";

/** A stream the session object cut (a long replay, a slow reader) is opened again this many times at most in a row without progress. */
const MAX_REOPENS_WITHOUT_PROGRESS = 3;

export interface FollowOptions {
  principal: Principal;
  limits: Limits;
  /** The last event id already seen; null starts with a snapshot. */
  cursor: number | null;
  signal?: AbortSignal;
}

/** The stream's frames in order; it ends when the session's stream does (`end`, 204) or `signal` aborts. */
export async function* followEvents(client: SessionClient, options: FollowOptions): AsyncGenerator<EventFrame> {
  let cursor = options.cursor;
  let idle = 0;
  while (!options.signal?.aborted) {
    const response = await client.openStream({
      mode: "sse",
      cursor,
      grant: {
        keyId: standingKeyOf(options.principal) ?? null,
        expiresAt: streamDeadline(options.principal.expiresAt ?? null, Date.now()),
      },
      caps: { perSession: options.limits.max_streams_per_session },
    });
    if (response.status === 204 || !response.body) return;
    let ended = false;
    let progressed = false;
    for await (const frame of sseFrames(response.body, options.signal)) {
      if (typeof frame.id === "number") {
        cursor = frame.id;
        progressed = true;
      } else if (frame.type === "snapshot") {
        cursor = (frame.data as { last_event_id: number }).last_event_id;
        progressed = true;
      }
      if (frame.type === "end") ended = true;
      yield frame;
    }
    if (ended) return;
    idle = progressed ? 0 : idle + 1;
    if (idle >= MAX_REOPENS_WITHOUT_PROGRESS) throw new Error("the session's event stream keeps closing without news");
  }
}

/** The id of the newest stored event, read from a snapshot; the stream is closed at once. */
export async function latestEventId(client: SessionClient, options: Omit<FollowOptions, "cursor">): Promise<number> {
  for await (const frame of followEvents(client, { ...options, cursor: null })) {
    if (frame.type === "snapshot") return (frame.data as { last_event_id: number }).last_event_id;
  }
  return 0;
}

async function* sseFrames(body: ReadableStream<Uint8Array>, signal: AbortSignal | undefined): AsyncGenerator<EventFrame> {
  const queue: EventFrame[] = [];
  const parser = createParser({
    onEvent(event) {
      try {
        const frame = JSON.parse(event.data) as Omit<EventFrame, "type"> & { type?: EventFrame["type"] };
        queue.push({ ...frame, type: frame.type ?? (event.event as EventFrame["type"]) });
      } catch {
        // Only the session object writes this stream; a frame it could not have sent is skipped.
      }
    },
  });
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", abort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
      while (queue.length > 0) yield queue.shift()!;
    }
  } finally {
    signal?.removeEventListener("abort", abort);
    await reader.cancel().catch(() => undefined);
  }
}
