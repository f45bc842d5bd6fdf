/**
 * `POST /v1/tenant/webhook-secret`: replaces the webhook signing secret. Not replayable by
 * Idempotency-Key: a retried rotation just rotates again, and the caller keeps the last one.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { WebhookSecretSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/tenant/webhook-secret",
  operationId: "rotateWebhookSecret",
  summary: "Rotate the webhook signing secret",
  description:
    "The replaced secret keeps signing for 24 hours (`previous_expires_at`): meanwhile every call carries both signatures, " +
    "`v1=<new>,v1=<old>`, so receivers can move to the new secret one by one. Rotating again ends the older secret's grace at once.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  responses: {
    200: jsonContent(WebhookSecretSchema, "The new secret."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { tenantId } = c.var.principal;
  const secret = await tenantIndexStub(c.env, tenantId).rotateWebhookSecret(tenantId, auditContext(c));
  c.header("Cache-Control", "no-store");
  return c.json(secret, 200);
};
