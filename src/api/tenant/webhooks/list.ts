/** `GET /v1/tenant/webhooks`: the tenant's status-webhook endpoints, newest first. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import type { AppEnv } from "../../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { EndpointListQuerySchema, WebhookEndpointPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/webhooks",
  operationId: "listWebhookEndpoints",
  summary: "List status-webhook endpoints",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { query: EndpointListQuerySchema },
  responses: {
    200: jsonContent(WebhookEndpointPageSchema, "A page of endpoints."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const { tenantId } = c.var.principal;
  return c.json(await tenantIndexStub(c.env, tenantId).listWebhookEndpoints(tenantId, { limit, cursor: cursor ?? null }), 200);
};
