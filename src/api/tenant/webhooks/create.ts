/**
 * `POST /v1/tenant/webhooks`: registers an endpoint for status notifications. Its URL is checked
 * like a webhook tool's (the address guard, https only, the tenant's allowed origins) and stored
 * normalized.
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../../objects";
import { auditContext } from "../../audit-context";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../../errors";
import { IdempotencyHeadersSchema, idempotent } from "../../middleware/idempotency";
import { requireScope } from "../../middleware/require-scope";
import { jsonBody, jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { checkNotifyUrl } from "../../../sessions/tool-specs";
import { CreateWebhookEndpointRequestSchema, WebhookEndpointSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/tenant/webhooks",
  operationId: "createWebhookEndpoint",
  summary: "Register a status-webhook endpoint",
  description:
    "The endpoint gets a signed POST for each notification of the types it lists, from every session of the tenant (see the " +
    "`sessionNotification` webhook). 409 when the tenant has the most endpoints it may have.",
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin"), idempotent()] as const,
  request: {
    headers: IdempotencyHeadersSchema,
    body: jsonBody(CreateWebhookEndpointRequestSchema, {
      url: "https://ops.example.com/agent-events",
      event_types: ["session.waiting_approval", "session.failed"],
      description: "on-call pager",
    }),
  },
  responses: {
    201: jsonContent(WebhookEndpointSchema, "The endpoint."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body: z.infer<typeof CreateWebhookEndpointRequestSchema> = c.req.valid("json");
  const principal = c.var.principal;
  const url = checkNotifyUrl(body.url, { allowPrivateUrls: c.var.config.allowPrivateUrls, webhookOrigins: c.var.settings.webhook_origins });
  if (!url.ok) throw new ApiError("validation_failed", undefined, { errors: [{ ...url.error, path: "body.url" }] });
  const created = await tenantIndexStub(c.env, principal.tenantId).createWebhookEndpoint(
    principal.tenantId,
    {
      url: url.url,
      event_types: body.event_types,
      description: body.description ?? null,
      created_by: principal.subject,
    },
    auditContext(c),
  );
  if (!created.ok) throw new ApiError("conflict", `A tenant may have at most ${created.max} webhook endpoints; delete one first.`);
  return c.json(created.endpoint, 201);
};
