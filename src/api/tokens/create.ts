/**
 * `POST /v1/auth/token`: exchanges the API key in `Authorization` for a short-lived JWT, for
 * places where a long-lived key must not go (a browser, a WebSocket URL).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { exchangeApiKeyForToken } from "../../auth/access-token";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, ApiError, errorResponses } from "../errors";
import { platformKeys } from "../platform";
import { jsonContent } from "../schemas";
import { apiKeyAuth } from "../security";
import { AccessTokenSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/auth/token",
  operationId: "createAccessToken",
  summary: "Exchange an API key for an access token",
  description: "Only an API key can be exchanged: a JWT cannot buy itself a fresh one. The token stops working when the key is revoked.",
  tags: ["Auth"],
  security: apiKeyAuth(),
  responses: {
    200: jsonContent(AccessTokenSchema, "A platform access token."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const keys = await platformKeys(c.var.config);
  // The failure itself was logged when the keys were loaded.
  if (!keys.ok) throw new ApiError("internal");
  const result = await exchangeApiKeyForToken(keys.keys, c.var.principal, c.var.config.auth, Date.now());
  if (!result.ok) throw new ApiError("forbidden", "Only an API key can be exchanged for an access token.");
  c.header("Cache-Control", "no-store");
  return c.json(result.token, 200);
};
