/**
 * The gateway app factory: the one place that wires request ids, 404/405, body limits,
 * authentication, validation, error rendering and the routes. The Worker and the tests both
 * build their app here.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { loadConfig } from "../config";
import { registerAdminRoutes } from "./admin";
import { registerApiKeyRoutes } from "./api-keys";
import { registerAuditRoutes } from "./audit";
import type { AuthGuard } from "./auth-guard";
import type { App, AppEnv } from "./context";
import { ApiError, apiErrorForStatus, problemJson, UNAVAILABLE_RETRY_AFTER_SECONDS } from "./errors";
import { describeError, log } from "../log";
import { authenticate } from "./middleware/authenticate";
import { bodyLimit, bodyLimitExceeded, payloadTooLarge } from "./middleware/body-limit";
import { corsPolicy } from "./middleware/cors";
import { requestId } from "./middleware/request-id";
import { validationHook } from "./middleware/validation";
import { registerResponseHeaders } from "./openapi-headers";
import { registerScheduleRoutes } from "./schedules";
import { registerAgentRoutes } from "./agents";
import { registerDatasetRoutes } from "./datasets";
import { registerEvalRoutes } from "./evals";
import { registerMemoryRoutes } from "./memory";
import { registerCredentialRoutes } from "./credentials";
import { registerSecuritySchemes } from "./security";
import { registerSessionRoutes } from "./sessions";
import { registerSystemRoutes } from "./system";
import { registerTenantRoutes } from "./tenant";
import { registerUsageRoutes } from "./usage-report";
import { registerTokenRoutes } from "./tokens";
import { registerOutgoingCalls } from "./outgoing";
import { registerA2aRoutes } from "./a2a";
import { registerChatRoutes } from "./chat";
import { registerMcpRoutes } from "./mcp";
import { registerAgUiRoutes } from "./ag-ui";
import { registerEndUserRoutes } from "./end-users";
import { registerMeRoutes } from "./me";
import { endUserGate } from "./middleware/end-user-gate";
import { isTenantGone } from "../tenants/tenant-binding";
import { isShardingRefused } from "../tenants/tenant-index/shards";

export interface CreateAppOptions {
  /** Registers more routes after the built-in ones, behind the same middleware. */
  routes?: (app: App) => void;
  /** The failed-authentication notes to use; the isolate's own by default (tests pass a fresh one). */
  authGuard?: AuthGuard;
}

export function createApp(options: CreateAppOptions = {}): App {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  app.use("*", requestId());
  app.use("*", async (_c, next) => {
    try {
      await next();
    } catch (thrown) {
      // Hono hands only Error instances to `onError`; anything else a library throws would
      // escape as an uncaught exception instead of a 500 problem.
      throw thrown instanceof Error ? thrown : new Error("non-Error value thrown", { cause: thrown });
    }
  });
  app.use("*", async (c, next) => {
    c.set("config", loadConfig(c.env));
    await next();
  });
  // Before everything that can refuse a request, so refusals carry CORS headers a page can read.
  app.use("*", corsPolicy());
  app.use(
    "*",
    methodNotAllowed<AppEnv>({
      app,
      onMethodNotAllowed: (c, methods) => problemJson(c, new ApiError("method_not_allowed", undefined, { allow: methods })),
    }),
  );
  app.use("*", bodyLimit());
  // Every versioned route is behind authentication: a route cannot forget it.
  app.use("/v1/*", authenticate(options.authGuard));
  // An end user's token reaches only its allowed routes, before any route can act on it.
  app.use("/v1/*", endUserGate());

  registerSecuritySchemes(app);
  registerResponseHeaders(app);
  registerSystemRoutes(app);
  registerTokenRoutes(app);
  registerEndUserRoutes(app);
  registerMeRoutes(app);
  registerTenantRoutes(app);
  registerUsageRoutes(app);
  registerApiKeyRoutes(app);
  registerAdminRoutes(app);
  registerSessionRoutes(app);
  registerScheduleRoutes(app);
  registerAgentRoutes(app);
  registerDatasetRoutes(app);
  registerEvalRoutes(app);
  registerMemoryRoutes(app);
  registerCredentialRoutes(app);
  registerAuditRoutes(app);
  registerOutgoingCalls(app);
  registerChatRoutes(app);
  registerMcpRoutes(app);
  registerA2aRoutes(app);
  registerAgUiRoutes(app);
  options.routes?.(app);

  app.notFound((c) => problemJson(c, new ApiError("not_found", "No route matches this path.")));
  app.onError((error, c) => renderError(error, c));
  return app;
}

/** Expected failures render as their problem; anything else is logged and answered generically. */
function renderError(error: Error, c: Context<AppEnv>): Response {
  if (bodyLimitExceeded(c)) return problemJson(c, payloadTooLarge(c));
  if (error instanceof ApiError) return problemJson(c, error);
  if (error instanceof HTTPException && error.status < 500) return problemJson(c, apiErrorForStatus(error.status, error.message));
  // A deleted tenant's index refuses to be bound again; a write that reached it past the routes' own check is refused the same way.
  if (isTenantGone(error)) return problemJson(c, new ApiError("conflict", "This tenant was deleted."));
  // A shard count the tenant's generations cannot take (too many shards in all).
  if (isShardingRefused(error)) return problemJson(c, new ApiError("conflict", error.message));
  if (isObjectUnavailable(error)) {
    log("error", "object_unavailable", { request_id: c.get("requestId"), path: c.req.path, error: describeError(error) });
    return problemJson(c, new ApiError("service_unavailable", undefined, { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS }));
  }
  log("error", "unhandled_error", {
    request_id: c.get("requestId"),
    client_request_id: c.get("clientRequestId") ?? null,
    method: c.req.method,
    path: c.req.path,
    error: describeError(error),
  });
  return problemJson(c, new ApiError("internal"));
}

/**
 * A Durable Object's infrastructure, not its code, failed the call (a reset or moving object, a lost
 * connection, an overloaded one): Cloudflare marks such errors `retryable` or `overloaded`, and an
 * error the object's own code threw `remote`. The request may be tried again, so 503, not 500.
 */
export function isObjectUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const flags = error as { retryable?: unknown; overloaded?: unknown; remote?: unknown };
  return flags.remote !== true && (flags.retryable === true || flags.overloaded === true);
}
