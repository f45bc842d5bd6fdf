/**
 * `POST /v1/auth/stream-token`: a token for `?access_token=` on the events route, the one route
 * that takes a credential in its URL; refused everywhere else (see middleware/url-token.ts).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { issueStreamToken } from "../../auth/access-token";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, ApiError, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { platformKeys } from "../platform";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { StreamTokenSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/auth/stream-token",
  operationId: "createStreamToken",
  summary: "Get a token for watching sessions from a URL",
  description: [
    "A token for `?access_token=` on `GET /v1/sessions/{id}/events`, for browsers' EventSource and WebSocket, which cannot send headers.",
    "It is accepted on that route only (a 401 anywhere else), carries `sessions:read` (and `tenant:admin` when the caller has it, to watch every session of the tenant), and expires within 15 minutes and never after the credential it was asked with.",
    "Any API key or JWT with `sessions:read` may ask, except a stream token.",
  ].join(" "),
  tags: ["Auth"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  responses: {
    200: jsonContent(StreamTokenSchema, "A stream token."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const keys = await platformKeys(c.var.config);
  // The failure itself was logged when the keys were loaded.
  if (!keys.ok) throw new ApiError("internal");
  const result = await issueStreamToken(keys.keys, c.var.principal, c.var.config.auth, Date.now());
  // A credential that expires within the second: what any expired credential gets.
  if (!result.ok) throw new ApiError("unauthorized");
  c.header("Cache-Control", "no-store");
  return c.json(result.token, 200);
};
