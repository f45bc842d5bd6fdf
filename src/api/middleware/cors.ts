/**
 * Cross-origin access for browser pages on the origins `CORS_ORIGINS` names (none by default),
 * through Hono's CORS middleware. A preflight from a listed origin is answered here, before
 * authentication (a browser sends no credentials with it); any other preflight goes on to the
 * routes as an ordinary OPTIONS request. An origin that is not listed is never reflected. The
 * API authenticates with bearer tokens, never cookies, so credentials mode is not allowed.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppEnv } from "../context";
import { RATE_LIMIT_HEADER, RATE_LIMIT_POLICY_HEADER } from "../rate-limit-fields";

/** Request headers a page may send. */
export const CORS_ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "Last-Event-ID", "X-Request-Id"];
/** Response headers a page may read beyond the safelisted ones. */
export const CORS_EXPOSE_HEADERS = [
  "X-Request-Id",
  "Retry-After",
  "Idempotent-Replayed",
  "WWW-Authenticate",
  "Allow",
  "ETag",
  RATE_LIMIT_POLICY_HEADER,
  RATE_LIMIT_HEADER,
];
export const CORS_ALLOW_METHODS = ["GET", "POST", "PUT", "DELETE"];
/** How long a browser may reuse a preflight answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/** Pure: the origin to allow, exactly as given, when the list names it; else null. */
export function allowedOrigin(origin: string | undefined, allowed: readonly string[]): string | null {
  return origin !== undefined && allowed.includes(origin) ? origin : null;
}

export function corsPolicy(): MiddlewareHandler<AppEnv> {
  const policy = cors({
    origin: (origin, c) => allowedOrigin(origin, (c.var as AppEnv["Variables"]).config.corsOrigins),
    allowMethods: CORS_ALLOW_METHODS,
    allowHeaders: CORS_ALLOW_HEADERS,
    exposeHeaders: CORS_EXPOSE_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
  });
  return async (c, next) => {
    const origin = c.req.header("Origin");
    const allowed = allowedOrigin(origin, c.var.config.corsOrigins);
    if (allowed === null) {
      // Nothing is allowed, but the answer still depends on Origin: shared caches must know.
      await next();
      if (c.var.config.corsOrigins.length > 0) varyOnOrigin(c.res);
      return;
    }
    const preflight = c.req.method === "OPTIONS" && c.req.header("Access-Control-Request-Method") !== undefined;
    if (c.req.method === "OPTIONS" && !preflight) return next();
    return policy(c, next);
  };
}

function varyOnOrigin(response: Response): void {
  try {
    response.headers.append("Vary", "Origin");
  } catch {
    // immutable headers (a passed-through response): it is not cacheable anyway
  }
}
