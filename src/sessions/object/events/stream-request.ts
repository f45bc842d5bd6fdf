/**
 * How the gateway asks a session object for an event stream: the session object's `fetch` is reachable only from
 * the gateway, which has authenticated the caller and passes what the stream needs to know of
 * the credential (its API key and its deadline) in one header, never the credential itself.
 */
import type { StreamGrant } from "./streams";

export const STREAM_GRANT_HEADER = "X-Stream-Grant";
/** The URL the gateway builds; only its query matters to the session object. */
const STREAM_URL = "https://agent.internal/events";

export interface StreamRequest {
  mode: "websocket" | "sse";
  /** The last event id the watcher has seen; null: it has seen nothing (a snapshot first). */
  cursor: number | null;
  grant: StreamGrant;
}

export function buildStreamRequest(stream: StreamRequest): Request {
  const url = new URL(STREAM_URL);
  if (stream.cursor !== null) url.searchParams.set("after", String(stream.cursor));
  const headers = new Headers({ [STREAM_GRANT_HEADER]: JSON.stringify(stream.grant) });
  if (stream.mode === "websocket") headers.set("Upgrade", "websocket");
  return new Request(url, { headers });
}

/** Null for a request the gateway would never build. */
export function parseStreamRequest(request: Request): StreamRequest | null {
  if (request.method !== "GET") return null;
  const mode = request.headers.get("Upgrade")?.toLowerCase() === "websocket" ? "websocket" : "sse";
  const after = new URL(request.url).searchParams.get("after");
  if (after !== null && !/^\d{1,15}$/.test(after)) return null;
  let grant: Partial<StreamGrant>;
  try {
    grant = JSON.parse(request.headers.get(STREAM_GRANT_HEADER) ?? "null") ?? {};
  } catch {
    return null;
  }
  if (typeof grant.expiresAt !== "number" || !(grant.keyId === null || typeof grant.keyId === "string")) return null;
  return { mode, cursor: after === null ? null : Number(after), grant: { keyId: grant.keyId, expiresAt: grant.expiresAt } };
}
