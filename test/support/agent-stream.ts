/**
 * Opens event streams straight on a session object, as the gateway does, for the session object's own tests.
 */
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { buildStreamRequest } from "../../src/sessions/object/events/stream-request";
import type { StreamGrant } from "../../src/sessions/object/events/streams";
import type { TestSession } from "./agent-session";
import { type Watch, watchSocket, watchSse } from "./event-client";

export interface OpenOptions {
  cursor?: number | null;
  grant?: Partial<StreamGrant>;
  /** The session's `max_streams_per_session` as the gateway passes it; the platform default otherwise. */
  perSession?: number;
}

function grantOf(options: OpenOptions): StreamGrant {
  return { keyId: options.grant?.keyId ?? null, expiresAt: options.grant?.expiresAt ?? Date.now() + 10 * 60_000 };
}

/** The session object's raw answer to a stream request. */
export function streamResponse(t: TestSession, mode: "sse" | "websocket", options: OpenOptions = {}): Promise<Response> {
  const caps = { perSession: options.perSession ?? BUILTIN_DEFAULT_LIMITS.max_streams_per_session };
  return t.stub.fetch(buildStreamRequest({ mode, cursor: options.cursor ?? null, grant: grantOf(options), caps }));
}

export async function openSse(t: TestSession, options: OpenOptions = {}): Promise<Watch> {
  const response = await streamResponse(t, "sse", options);
  if (response.status !== 200) throw new Error(`SSE answered ${response.status}: ${await response.text()}`);
  return watchSse(response);
}

export async function openSocket(t: TestSession, options: OpenOptions = {}): Promise<Watch> {
  const response = await streamResponse(t, "websocket", options);
  const socket = response.webSocket;
  if (response.status !== 101 || !socket) throw new Error(`WebSocket answered ${response.status}: ${await response.text()}`);
  const watch = watchSocket(socket);
  socket.accept();
  return watch;
}
