/** `GET /v1/tenant/webhook-secret`: the secret that signs webhook tool calls (made on first read). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { WebhookSecretSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/webhook-secret",
  operationId: "getWebhookSecret",
  summary: "Get the webhook signing secret",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    200: jsonContent(WebhookSecretSchema, "The current secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const secret = await tenantIndexStub(c.env, tenantId).getWebhookSecret(tenantId);
  c.header("Cache-Control", "no-store");
  return c.json(secret, 200);
};
