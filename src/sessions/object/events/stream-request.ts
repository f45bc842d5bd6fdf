/**
 * How the gateway asks a session object for an event stream: the session object's `fetch` is reachable only from
 * the gateway, which has authenticated the caller and passes what the stream needs to know of
 * the credential (its API key and its deadline) in one header, never the credential itself.
 */
import { BUILTIN_DEFAULT_LIMITS } from "../../../limits";
import { SEQUENCE_PATTERN } from "../../../shared/cursor";
import type { StreamGrant } from "./streams";

export const STREAM_GRANT_HEADER = "X-Stream-Grant";
/** The URL the gateway builds; only its query matters to the session object. */
const STREAM_URL = "https://agent.internal/events";

/**
 * How many streams may be open at once on the session, from the tenant's limits as the gateway
 * read them. The tenant-wide cap is the tenant index's own (it holds the limits).
 */
export interface StreamCaps {
  perSession: number;
}

export interface StreamRequest {
  mode: "websocket" | "sse";
  /** The last event id the watcher has seen; null: it has seen nothing (a snapshot first). */
  cursor: number | null;
  grant: StreamGrant;
  caps: StreamCaps;
}

export function buildStreamRequest(stream: StreamRequest): Request {
  const url = new URL(STREAM_URL);
  if (stream.cursor !== null) url.searchParams.set("after", String(stream.cursor));
  const headers = new Headers({ [STREAM_GRANT_HEADER]: JSON.stringify({ ...stream.grant, caps: stream.caps }) });
  if (stream.mode === "websocket") headers.set("Upgrade", "websocket");
  return new Request(url, { headers });
}

/** Null for a request the gateway would never build. */
export function parseStreamRequest(request: Request): StreamRequest | null {
  if (request.method !== "GET") return null;
  const mode = request.headers.get("Upgrade")?.toLowerCase() === "websocket" ? "websocket" : "sse";
  const after = new URL(request.url).searchParams.get("after");
  if (after !== null && !SEQUENCE_PATTERN.test(after)) return null;
  let grant: Partial<StreamGrant> & { caps?: Partial<StreamCaps> };
  try {
    grant = JSON.parse(request.headers.get(STREAM_GRANT_HEADER) ?? "null") ?? {};
  } catch {
    return null;
  }
  if (typeof grant.expiresAt !== "number" || !(grant.keyId === null || typeof grant.keyId === "string")) return null;
  // A gateway older than the caps sends none (during a deploy): the platform's default holds.
  const perSession = grant.caps?.perSession ?? BUILTIN_DEFAULT_LIMITS.max_streams_per_session;
  if (!isCap(perSession)) return null;
  return {
    mode,
    cursor: after === null ? null : Number(after),
    grant: { keyId: grant.keyId, expiresAt: grant.expiresAt },
    caps: { perSession },
  };
}

function isCap(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1;
}
