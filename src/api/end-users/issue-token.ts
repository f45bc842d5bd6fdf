/**
 * `POST /v1/auth/end-user-token`: a tenant's backend mints a short-lived token for one of its
 * users, so the user's browser calls the platform as that user and as nobody else.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { issueEndUserToken } from "../../auth/end-user-token";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, ApiError, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { platformKeys } from "../platform";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { EndUserTokenRequestSchema, EndUserTokenSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/auth/end-user-token",
  operationId: "createEndUserToken",
  summary: "Mint a token for an end user",
  description: [
    "For a backend: a short-lived platform JWT for principal `end_user:<subject>`, which sees only its own sessions, chats and memory (`users.<subject>`).",
    "Its scopes are at most the caller's, and at most `sessions:read sessions:write memory:read memory:write`.",
    "Minting is limited per tenant (`end_user_tokens_per_minute`); an end user's own token cannot mint one (403).",
  ].join(" "),
  tags: ["Auth"],
  security: bearerAuth("end_users:issue"),
  middleware: [requireScope("end_users:issue")] as const,
  request: {
    body: jsonBody(EndUserTokenRequestSchema, { subject: "user_42", scopes: ["sessions:read", "sessions:write"], ttl_seconds: 900 }),
  },
  responses: {
    201: jsonContent(EndUserTokenSchema, "The end user's token."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const keys = await platformKeys(c.var.config);
  // The failure itself was logged when the keys were loaded.
  if (!keys.ok) throw new ApiError("internal");
  const result = await issueEndUserToken(keys.keys, c.var.principal, body, c.var.config.auth, Date.now());
  if (!result.ok) {
    switch (result.reason) {
      case "caller_is_end_user":
        throw new ApiError("forbidden", "An end user's token cannot mint tokens.");
      case "scopes_not_grantable":
        throw new ApiError("forbidden", "An end-user token can carry only scopes the caller holds itself.", {
          errors: result.scopes.map(({ index, scope }) => ({
            path: body.scopes ? `body.scopes.${index}` : "body.scopes",
            message: `The caller does not hold ${scope}.`,
          })),
        });
      case "expiring":
        throw new ApiError("unauthorized");
    }
  }
  c.header("Cache-Control", "no-store");
  return c.json(result.token, 201);
};
