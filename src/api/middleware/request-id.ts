/**
 * Gives every request the platform's own id (logs, problem documents, the audit log) and keeps
 * the caller's `X-Request-Id`, when sane, apart as its client request id: a caller chooses its
 * own, so it names nothing for certain. The response's `X-Request-Id`, errors included, echoes
 * the caller's, else carries the platform's, so a report from a caller can be found in the logs.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context";
import { ensureHeaders, prepareHeaders } from "./response-headers";

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
    const own = crypto.randomUUID();
    const client = acceptRequestId(c.req.header(REQUEST_ID_HEADER));
    c.set("requestId", own);
    c.set("clientRequestId", client);
    const headers = { [REQUEST_ID_HEADER]: client ?? own };
    prepareHeaders(c, headers);
    await next();
    ensureHeaders(c, headers);
  };
}
