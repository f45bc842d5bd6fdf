/** The session's event streams as its controls end them: closed when the tenant index asks (a revoked key, a suspended tenant), or by the watcher. */
import { CLOSE_CODES, requireStreamFilter, type StreamFilter } from "../events/streams";
import type { ControlHost } from "./host";

/** Returns how many streams were open. */
export function closeStreams(host: Pick<ControlHost, "events">, filter: StreamFilter, why: "credentials" | "suspended"): number {
  if (why !== "credentials" && why !== "suspended") throw new TypeError("why must be credentials or suspended");
  const checked = requireStreamFilter(filter);
  const code = why === "suspended" ? CLOSE_CODES.suspended : CLOSE_CODES.credentials;
  return host.events.streams.close(checked, code, why === "suspended" ? "tenant suspended" : "credentials revoked");
}

/** A watcher's socket closed: it is forgotten, and closed on this side with the code it gave. */
export function socketClosed(host: Pick<ControlHost, "events">, socket: WebSocket, code: number): void {
  host.events.streams.socketClosed(socket);
  try {
    socket.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
  } catch {
    // already closed
  }
}
