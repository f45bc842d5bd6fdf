/** `GET /v1/tenant/webhooks/{id}/deliveries`: an endpoint's recent deliveries, newest first, with their status and attempts. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { DELIVERY_RETENTION_MS, MAX_SETTLED_DELIVERIES_PER_TARGET } from "../../../notifications/retention";
import { tenantIndexStub } from "../../../objects";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { requireScope } from "../../middleware/require-scope";
import { jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { DeliveryListQuerySchema, ENDPOINT_NOT_FOUND, EndpointParamsSchema, isEndpointId, WebhookDeliveryPageSchema } from "./schemas";

const RETENTION_DAYS = DELIVERY_RETENTION_MS / (24 * 60 * 60 * 1000);

export const route = createRoute({
  method: "get",
  path: "/v1/tenant/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  summary: "List an endpoint's deliveries",
  description:
    `Every delivery still owed, and the settled ones of the last ${RETENTION_DAYS} days (at most the newest ` +
    `${MAX_SETTLED_DELIVERIES_PER_TARGET}). \`status\` filters.`,
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin")] as const,
  request: { params: EndpointParamsSchema, query: DeliveryListQuerySchema },
  responses: {
    200: jsonContent(WebhookDeliveryPageSchema, "A page of deliveries."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const { limit, cursor, status } = c.req.valid("query");
  const { tenantId } = c.var.principal;
  const page = isEndpointId(id)
    ? await tenantIndexStub(c.env, tenantId).listWebhookDeliveries(tenantId, id, { limit, cursor: cursor ?? null, status: status ?? null })
    : null;
  if (!page) throw new ApiError("not_found", ENDPOINT_NOT_FOUND);
  return c.json(page, 200);
};
