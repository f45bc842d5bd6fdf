/**
 * `POST /v1/api-keys`: creates a key for a backend. The plaintext is in this one response
 * only. Not replayable by Idempotency-Key on purpose: a replay would have to keep the
 * plaintext key for a day, and the platform keeps nothing but its hash.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import { API_KEY_SECRET_MISSING } from "../../auth/api-key-secret";
import { generateApiKey, type ApiKeyRecord } from "../../auth/api-keys";
import { hasScope, type Principal, type Scope } from "../../auth/principal";
import { authGuard } from "../auth-guard";
import { apiKeySecret } from "../platform";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { CreateApiKeyBodySchema, CreatedApiKeySchema, toApiKey } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/api-keys",
  operationId: "createApiKey",
  summary: "Create an API key",
  tags: ["API keys"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    body: jsonBody(CreateApiKeyBodySchema, {
      name: "billing backend",
      scopes: ["sessions:read", "sessions:write"],
      expires_at: "2027-01-01T00:00:00Z",
    }),
  },
  responses: {
    201: jsonContent(CreatedApiKeySchema, "The key, with its plaintext shown this once."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

/** Pure: the requested scopes the creator could not use itself; a key never outranks its maker. */
export function scopesBeyondCreator(creator: Pick<Principal, "scopes">, requested: readonly Scope[]): Scope[] {
  return requested.filter((scope) => !hasScope(creator, scope));
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const principal = c.var.principal;
  const now = Date.now();

  const beyond = scopesBeyondCreator(principal, body.scopes);
  if (beyond.length > 0) throw new ApiError("forbidden", `You cannot grant scopes you do not hold: ${beyond.join(", ")}.`);
  const expiresAt = body.expires_at ? Date.parse(body.expires_at) : null;
  if (expiresAt !== null && expiresAt <= now) {
    throw new ApiError("validation_failed", undefined, { errors: [{ path: "body.expires_at", message: "Must be in the future." }] });
  }

  const secret = await apiKeySecret(c.var.config);
  if (!secret.ok) throw new ApiError("internal", API_KEY_SECRET_MISSING);
  const generated = await generateApiKey(principal.tenantId, secret.key);
  const record: ApiKeyRecord = {
    key_id: generated.keyId,
    tenant_id: principal.tenantId,
    name: body.name,
    scopes: body.scopes,
    hash: generated.hash,
    created_by: principal.subject,
    created_at: new Date(now).toISOString(),
    expires_at: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    revoked_at: null,
    last_used_at: null,
    max_tokens_per_day: body.max_tokens_per_day ?? null,
  };
  await tenantIndexStub(c.env, principal.tenantId).createApiKey(principal.tenantId, record, auditContext(c));
  authGuard.forgetUnknownKey(principal.tenantId, record.key_id);
  c.header("Cache-Control", "no-store");
  return c.json({ ...toApiKey(record), key: generated.plaintext }, 201);
};
