/**
 * What an end user's token may reach, in one place: only the routes of `END_USER_ROUTES` (403
 * elsewhere), and a session shown without its definition: no system prompt, no notification
 * URL, and of its tools only the client tools the page itself answers (the prompt, the webhook
 * tools and where notifications go are the tenant's), and its memory grant as narrowed to the
 * end user's own. Ownership itself is the sessions' own rule (`src/sessions/access.ts`).
 */
import type { MiddlewareHandler } from "hono";
import type { AppContext, AppEnv } from "../context";
import { END_USER_ROUTES } from "../end-users/allowed-routes";
import { ApiError } from "../errors";
import { pathPattern } from "./request-kind";
import { confineGrant, memoryReachOf } from "../../memory/end-user";
import type { MemoryGrant } from "../../session-config/memory-namespace";

const ALLOWED = END_USER_ROUTES.map((entry) => {
  const [method, path] = entry.split(" ") as [string, string];
  return { method, pattern: pathPattern(path) };
});

/** Pure: whether an end user's token may call `method` `path`. */
export function endUserMayCall(method: string, path: string): boolean {
  const upper = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return ALLOWED.some((route) => route.method === upper && route.pattern.test(path));
}

export function endUserGate(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.var.principal?.endUser === undefined) return next();
    if (!endUserMayCall(c.req.method, c.req.path)) throw new ApiError("forbidden", "An end user's token cannot call this route.");
    const subject = c.var.principal.subject;
    c.set("shown", (body) => (isSessionLike(body) ? withoutDefinition(body, subject) : body));
    await next();
    await hideDefinition(c);
  };
}

/**
 * Pure: a session (any JSON object with `system` and `tools`) as an end user sees it, its
 * memory grant as its tools apply it (`confineGrant`), for `subject` the principal's.
 */
export function withoutDefinition(body: Record<string, unknown>, subject: string): Record<string, unknown> {
  const tools = Array.isArray(body.tools)
    ? body.tools.filter((tool: unknown) => (tool as { type?: unknown } | null)?.type === "client")
    : [];
  const memory = isGrant(body.memory) ? confineGrant(body.memory, memoryReachOf(subject)) : null;
  // An end user cannot set `notify_url` itself (src/sessions/plan.ts): any it has is the agent's.
  return { ...body, system: null, tools, memory, ...("notify_url" in body ? { notify_url: null } : {}) };
}

/** A JSON answer holding a definition: a session (`system` and `tools` at the top). */
function isSessionLike(body: unknown): body is Record<string, unknown> {
  return typeof body === "object" && body !== null && !Array.isArray(body) && "system" in body && "tools" in body;
}

function isGrant(value: unknown): value is MemoryGrant {
  const grant = value as Partial<MemoryGrant> | null;
  return typeof grant === "object" && grant !== null && Array.isArray(grant.namespaces) && Array.isArray(grant.write);
}

async function hideDefinition(c: AppContext): Promise<void> {
  const res = c.res;
  if (!(res.headers.get("Content-Type") ?? "").startsWith("application/json")) return;
  const body = (await res.clone().json()) as unknown;
  if (!isSessionLike(body)) return;
  const headers = new Headers(res.headers);
  headers.delete("Content-Length");
  c.res = new Response(JSON.stringify(withoutDefinition(body, c.var.principal.subject)), {
    status: res.status,
    statusText: res.statusText,
    headers,
  });
}
