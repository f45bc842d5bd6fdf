/** `GET /v1/api-keys`: the tenant's keys, newest first, revoked ones included; never a secret. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { ApiKeyListQuerySchema, ApiKeyPageSchema, toApiKey } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/api-keys",
  operationId: "listApiKeys",
  summary: "List API keys",
  tags: ["API keys"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { query: ApiKeyListQuerySchema },
  responses: {
    200: jsonContent(ApiKeyPageSchema, "A page of keys."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const { tenantId } = c.var.principal;
  const page = await tenantIndexStub(c.env, tenantId).listApiKeys(tenantId, { limit, cursor: cursor ?? null });
  return c.json({ data: page.data.map(toApiKey), next_cursor: page.next_cursor }, 200);
};
