/**
 * Gives every request an id, echoed from `X-Request-Id` when the caller's is sane, and puts it
 * on every response, errors included, so a report from a caller can be found in the logs.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";

export const REQUEST_ID_HEADER = "X-Request-Id";
/** Long enough for a UUID or a prefixed trace id; short enough to keep log lines bounded. */
export const MAX_REQUEST_ID_LENGTH = 128;
/** No spaces, quotes or control characters: the id lands in logs and JSON unescaped-safe. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:\-]+$/;

/** The caller's id when it is usable as is, else null. Pure. */
export function acceptRequestId(value: string | null | undefined): string | null {
  if (!value || value.length > MAX_REQUEST_ID_LENGTH) return null;
  return REQUEST_ID_PATTERN.test(value) ? value : null;
}

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = acceptRequestId(c.req.header(REQUEST_ID_HEADER)) ?? crypto.randomUUID();
    c.set("requestId", id);
    // Set before `next` so responses built through the context carry it; checked again after,
    // for responses built elsewhere (a replayed or passed-through Response).
    c.header(REQUEST_ID_HEADER, id);
    await next();
    if (c.res.headers.get(REQUEST_ID_HEADER) === id) return;
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      // Immutable headers (a Response from fetch): copy it.
      const copy = new Response(c.res.body, c.res);
      copy.headers.set(REQUEST_ID_HEADER, id);
      c.res = copy;
    }
  };
}
