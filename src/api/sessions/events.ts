/**
 * `GET /v1/sessions/{id}/events`: the session's events, as Server-Sent Events or over a
 * WebSocket. The gateway checks the caller and the session, then hands the stream to the
 * session's session object, which serves it (and, for a WebSocket, hibernates between events).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { EVENT_RETENTION_COUNT, EVENT_RETENTION_MS } from "../../sessions/object/events/retention";
import { MAX_STREAM_LIFETIME_MS, streamDeadline } from "../../sessions/object/events/streams";
import { DAY_MS } from "../../tenants/usage";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerOrUrlTokenAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { standingKeyOf } from "../../auth/principal";
import { EventStreamSchema, EventsHeadersSchema, EventsQuerySchema } from "./event-schemas";
import { SessionIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/sessions/{id}/events",
  operationId: "streamSessionEvents",
  summary: "Watch a session's events",
  description: [
    "Server-Sent Events with `Accept: text/event-stream` (or any Accept that allows it), or a WebSocket on `Upgrade: websocket`.",
    "Without a cursor the stream starts with a `snapshot`; with `Last-Event-ID` or `after` it replays every stored event after that id, exactly once, then live ones.",
    `A cursor older than the retention (${EVENT_RETENTION_COUNT} events, ${EVENT_RETENTION_MS / DAY_MS} days) gets a \`snapshot\` with \`reset: true\`.`,
    "After a final status the stream sends `end` and closes; a reconnect to an ended session with nothing newer than the cursor answers 204.",
    "Browsers pass a stream token (`POST /v1/auth/stream-token`) as `access_token`; no other token or API key is taken there.",
    `A stream closes when its credential or its API key expires (at the latest after ${MAX_STREAM_LIFETIME_MS / 60_000} minutes), and at once when its API key is revoked or the tenant suspended.`,
    "A session takes `max_streams_per_session` open streams and a tenant `max_streams_per_tenant`; the stream past either is a 429.",
  ].join(" "),
  tags: ["Sessions"],
  security: bearerOrUrlTokenAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: SessionIdParamsSchema, query: EventsQuerySchema, headers: EventsHeadersSchema },
  responses: {
    101: { description: "A WebSocket: one JSON `EventFrame` per text frame. Sending `ping` gets `pong` without waking the session." },
    200: {
      description: "Server-Sent Events, one `EventFrame` each.",
      // The body is the stream, not one frame (see EventStreamSchema).
      content: { "text/event-stream": { schema: EventStreamSchema } },
    },
    204: { description: "The session has ended and nothing is newer than the cursor: stop reconnecting." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 406),
  },
});

/** Pure: `Last-Event-ID` (what EventSource sends on reconnecting) wins over the URL's `after`. */
export function eventCursor(lastEventId: string | undefined, after: string | undefined): number | null {
  if (lastEventId !== undefined && lastEventId !== "") return Number(lastEventId);
  return after === undefined ? null : Number(after);
}

/** Pure: whether an `Accept` header allows `text/event-stream` (no header allows anything). */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return accept.split(",").some((range) => {
    const [type = "", ...params] = range.trim().toLowerCase().split(";");
    const refused = params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param));
    return !refused && ["text/event-stream", "text/*", "*/*"].includes(type.trim());
  });
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { after } = c.req.valid("query");
  const headers = c.req.valid("header");
  const websocket = c.req.header("Upgrade")?.toLowerCase() === "websocket";
  if (!websocket && !acceptsEventStream(c.req.header("Accept"))) {
    throw new ApiError("not_acceptable", "Ask for text/event-stream, or open a WebSocket.");
  }
  const { principal } = c.var;
  const { client } = await loadOwnedSession(c.env, principal, id);
  const response = await client.openStream({
    mode: websocket ? "websocket" : "sse",
    cursor: eventCursor(headers["last-event-id"], after),
    grant: { keyId: standingKeyOf(principal) ?? null, expiresAt: streamDeadline(principal.expiresAt ?? null, Date.now()) },
    caps: { perSession: c.var.limits.max_streams_per_session },
  });
  // A streamed or upgraded response, which the route's typed JSON helpers cannot describe.
  return response as never;
};
