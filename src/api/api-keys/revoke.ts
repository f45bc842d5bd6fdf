/** `DELETE /v1/api-keys/{key_id}`: revokes a key at once, including tokens exchanged from it. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { KeyIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/api-keys/{key_id}",
  operationId: "revokeApiKey",
  summary: "Revoke an API key",
  description: "Revoking a key twice is not an error; the first revocation time is kept.",
  tags: ["API keys"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: KeyIdParamsSchema },
  responses: {
    204: { description: "Revoked." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { key_id: keyId } = c.req.valid("param");
  const { tenantId } = c.var.principal;
  const found = await tenantIndexStub(c.env, tenantId).revokeApiKey(tenantId, keyId, Date.now());
  if (!found) throw new ApiError("not_found", "No such API key.");
  return c.body(null, 204);
};
