/**
 * The two ways to authenticate, as OpenAPI security schemes, and the `security` requirement
 * each kind of route declares. OpenAPI 3.1 lets a non-OAuth requirement list roles, so the
 * scope a route needs is part of its document.
 */
import type { Scope } from "../auth/principal";
import type { App } from "./context";

export const JWT_SCHEME = "bearerJwt";
export const API_KEY_SCHEME = "bearerApiKey";
export const URL_TOKEN_SCHEME = "accessTokenQuery";

export type SecurityRequirement = Record<string, string[]>[];

export function registerSecuritySchemes(app: App): void {
  app.openAPIRegistry.registerComponent("securitySchemes", JWT_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "A JWT from the platform issuer (see /.well-known/jwks.json and POST /v1/auth/token) or the configured identity provider.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", API_KEY_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "ak_…",
    description: "An API key created with POST /v1/api-keys, sent as a bearer credential.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", URL_TOKEN_SCHEME, {
    type: "apiKey",
    in: "query",
    name: "access_token",
    description:
      "A stream token (POST /v1/auth/stream-token) in the URL, for browsers' EventSource and WebSocket, which cannot send headers; only on GET /v1/sessions/{id}/events. Any other token or an API key here is refused (401), and a stream token is refused on every other route.",
  });
}

/** A route any principal may call, given `scope` when one is named. */
export function bearerAuth(scope?: Scope): SecurityRequirement {
  const roles = scope ? [scope] : [];
  return [{ [JWT_SCHEME]: roles }, { [API_KEY_SCHEME]: [...roles] }];
}

/** A route that also takes a JWT as `?access_token=` (see middleware/url-token.ts). */
export function bearerOrUrlTokenAuth(scope: Scope): SecurityRequirement {
  return [...bearerAuth(scope), { [URL_TOKEN_SCHEME]: [scope] }];
}

/** Platform admins authenticate with JWTs only: an API key can never carry platform:admin. */
export function platformAdminAuth(): SecurityRequirement {
  return [{ [JWT_SCHEME]: ["platform:admin"] }];
}

/** The token exchange takes an API key and nothing else. */
export function apiKeyAuth(): SecurityRequirement {
  return [{ [API_KEY_SCHEME]: [] }];
}

/** Public routes: explicitly none. */
export const NO_AUTH: SecurityRequirement = [];
