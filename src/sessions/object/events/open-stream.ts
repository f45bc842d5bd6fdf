/**
 * Opens a watcher's event stream on the session object: the snapshot or the replay its cursor asks for,
 * then live frames, until the session ends, the credential's deadline passes, or its key or
 * tenant loses the right (the tenant index closes it then: see `TenantIndex.noteEventStream`).
 */
import { tenantIndexStub } from "../../../objects";
import { log } from "../../../log";
import type { StreamNote } from "../../../tenants/types";
import type { SessionStore, StoredSession } from "../store/store";
import type { EventLog } from "./event-log";
import type { SessionFailure } from "../../../session-config/types";
import { type EventFrame, frameJson, sseEvent } from "./frames";
import { planReplay } from "./retention";
import { buildSnapshot } from "./snapshot";
import { parseStreamRequest, type StreamRequest } from "./stream-request";
import { CLOSE_CODES, MAX_REPLAY_BYTES, REPLAY_PAGE_EVENTS, type StreamTag, type Watcher } from "./streams";

/**
 * A place on a full session frees only when one of its watchers leaves, which nothing predicts:
 * every 429 carries Retry-After, and this one asks for a pause long enough not to hammer.
 */
export const SESSION_STREAM_RETRY_AFTER_SECONDS = 5;

/** What opening a stream needs of the session's engine (which satisfies it). */
export interface StreamHost {
  readonly env: Cloudflare.Env;
  readonly store: SessionStore;
  readonly events: EventLog;
  session(): StoredSession | undefined;
  nowIso(): string;
}

export const SSE_HEADERS = {
  "Content-Type": "text/event-stream; charset=utf-8",
  "Cache-Control": "no-store",
  // Proxies that buffer responses would hold the events back.
  "X-Accel-Buffering": "no",
} as const;

export async function openEventStream(host: StreamHost, request: Request): Promise<Response> {
  const session = host.session();
  if (!session) return refusal(404, { reason: "session_not_found" });
  const stream = parseStreamRequest(request);
  if (!stream) return refusal(400, { reason: "invalid", detail: "not an event stream request" });
  const now = Date.now();
  host.events.pruneByAge(now);

  // An ended session with nothing after the cursor: 204 tells a browser's EventSource to stop.
  const bounds = host.events.bounds();
  const plan = planReplay(stream.cursor, bounds);
  if (plan.kind === "replay" && plan.after >= bounds.lastId && host.events.endFrame(host.nowIso()) !== null) {
    return new Response(null, { status: 204 });
  }

  const streams = host.events.streams;
  // Counted with the pending ones, and nothing awaits between the count and the acceptance, so
  // two streams opening at once cannot both take the last place.
  const perSession = Math.min(stream.caps.perSession, session.limits.max_streams_per_session ?? Number.POSITIVE_INFINITY);
  if (streams.count() >= perSession) {
    return refusal(429, {
      reason: "stream_limit",
      scope: "session",
      max: perSession,
      retryAfterSeconds: SESSION_STREAM_RETRY_AFTER_SECONDS,
    });
  }
  const opened = open(host, stream, now, { streamId: crypto.randomUUID(), tenantId: session.tenant_id });
  // The index notes the stream before it gets a frame, and refuses it if the key was revoked or
  // the tenant suspended meanwhile, or the tenant has its most streams open; from then on a
  // revocation reaches it through `closeStreams`.
  let admitted: StreamNote;
  try {
    admitted = await tenantIndexStub(host.env, session.tenant_id).noteEventStream(session.tenant_id, {
      sessionId: session.id,
      streamId: opened.watcher.tag!.streamId,
      keyId: stream.grant.keyId,
      expiresAt: stream.grant.expiresAt,
      now,
    });
  } catch (error) {
    streams.refuse(opened.watcher, CLOSE_CODES.ended, "unavailable");
    log("warn", "stream_note_failed", { session_id: session.id, error: String(error) });
    return refusal(503, { reason: "stream_refused", why: "unavailable" });
  }
  if (!admitted.ok) {
    streams.refuse(opened.watcher, admitted.reason === "suspended" ? CLOSE_CODES.suspended : CLOSE_CODES.credentials, admitted.reason);
    if (admitted.reason === "limit") {
      return refusal(429, { reason: "stream_limit", scope: "tenant", max: admitted.max, retryAfterSeconds: admitted.retryAfterSeconds });
    }
    return refusal(admitted.reason === "suspended" ? 403 : 401, { reason: "stream_refused", why: admitted.reason });
  }
  // A token exchanged from an API key may outlive the key; the stream does not.
  streams.shorten(opened.watcher, admitted.expiresAt, Date.now());
  if (!host.session()) {
    opened.watcher.close(CLOSE_CODES.ended, "session erased");
    return refusal(404, { reason: "session_not_found" });
  }

  // From here to `activate` nothing awaits, so no live frame can slip between the first frames.
  if (streams.isOpen(opened.watcher)) {
    const complete = sendFirstFrames(host, opened.watcher, stream.cursor);
    streams.activate(opened.watcher);
    const end = complete ? host.events.endFrame(host.nowIso()) : null;
    if (end) {
      opened.watcher.send(frameJson(end), sseEvent(end));
      opened.watcher.close(CLOSE_CODES.ended, "session ended");
    }
  }
  return opened.response();
}

function open(host: StreamHost, stream: StreamRequest, now: number, tag: StreamTag): { watcher: Watcher; response: () => Response } {
  const streams = host.events.streams;
  if (stream.mode === "websocket") {
    const pair = new WebSocketPair();
    const watcher = streams.acceptSocket(pair[1], stream.grant, tag);
    return { watcher, response: () => new Response(null, { status: 101, webSocket: pair[0] }) };
  }
  const watcher = streams.openSse(stream.grant, now, tag);
  return { watcher, response: () => new Response(watcher.body, { status: 200, headers: SSE_HEADERS }) };
}

/**
 * A snapshot (with the id it is current as of, for SSE), or the replay after the cursor, read and
 * sent a page at a time. Returns false when the stream was cut before the replay's end: past
 * `MAX_REPLAY_BYTES`, or by its SSE backlog; the watcher resumes from the last id it got.
 */
function sendFirstFrames(host: StreamHost, watcher: Watcher, cursor: number | null): boolean {
  const bounds = host.events.bounds();
  const plan = planReplay(cursor, bounds);
  if (plan.kind === "snapshot") {
    const data = buildSnapshot(host.store, host.store.run(), bounds.lastId, plan.reset);
    const frame: EventFrame = { type: "snapshot", data, created_at: host.nowIso() };
    watcher.send(frameJson(frame), sseEvent(frame, bounds.lastId));
    return true;
  }
  const streams = host.events.streams;
  let after = plan.after;
  let sent = 0;
  for (;;) {
    const page = host.events.replay(after, REPLAY_PAGE_EVENTS);
    for (const frame of page) {
      if (sent >= MAX_REPLAY_BYTES) {
        watcher.close(CLOSE_CODES.tooSlow, "replay continues after a reconnect");
        return false;
      }
      const text = sseEvent(frame);
      watcher.send(frameJson(frame), text);
      sent += text.length;
      if (!streams.isOpen(watcher)) return false;
    }
    if (page.length < REPLAY_PAGE_EVENTS) return true;
    after = page[page.length - 1]!.id!;
  }
}

function refusal(status: number, failure: SessionFailure): Response {
  return Response.json({ ok: false, ...failure }, { status });
}
