/** `PATCH /v1/api-keys/{key_id}`: changes a key's daily token budget; sessions waiting on it are told before the answer. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { jsonBody } from "../schemas";
import { KeyIdParamsSchema, UpdateApiKeyBodySchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "patch",
  path: "/v1/api-keys/{key_id}",
  operationId: "updateApiKey",
  summary: "Change an API key's daily token budget",
  description: "Audited as `api_key.updated`. Raising it lets the key's sessions waiting in `waiting_budget` go on.",
  tags: ["API keys"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: {
    params: KeyIdParamsSchema,
    body: jsonBody(UpdateApiKeyBodySchema, { max_tokens_per_day: 500000 }),
  },
  responses: {
    204: { description: "Changed." },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { key_id: keyId } = c.req.valid("param");
  const { max_tokens_per_day: maxTokensPerDay } = c.req.valid("json");
  const { tenantId } = c.var.principal;
  const found = await tenantIndexStub(c.env, tenantId).setApiKeyBudget(tenantId, keyId, maxTokensPerDay, auditContext(c));
  if (!found) throw new ApiError("not_found", "No such API key.");
  return c.body(null, 204);
};
