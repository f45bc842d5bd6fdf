/**
 * `POST /v1/tenant/webhooks/{id}/deliveries/{delivery_id}/redeliver`: sends a delivery's
 * notification again, as a new delivery with the same body and event id and a retry schedule of
 * its own. 409 while the delivery itself is still owed.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { MAX_REDELIVERIES_PER_DAY, REDELIVER_INTERVAL_MS } from "../../../notifications/retention";
import { tenantIndexStub } from "../../../objects";
import type { AppEnv } from "../../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../../errors";
import { IdempotencyHeadersSchema, idempotent } from "../../middleware/idempotency";
import { requireScope } from "../../middleware/require-scope";
import { jsonContent } from "../../schemas";
import { bearerAuth } from "../../security";
import { DELIVERY_NOT_FOUND, DeliveryParamsSchema, isDeliveryId, isEndpointId, WebhookDeliverySchema } from "./schemas";
import { auditContext } from "../../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/tenant/webhooks/{id}/deliveries/{delivery_id}/redeliver",
  operationId: "redeliverWebhook",
  summary: "Redeliver a notification",
  description:
    "A new delivery of the same notification (same body, same event `id`, so a receiver that has it can tell) to the same endpoint, " +
    "tried at once and retried on the usual schedule. 409 while the delivery named is still pending. A notification may be redelivered to an " +
    `endpoint at most once in ${REDELIVER_INTERVAL_MS / 1000} s and ${MAX_REDELIVERIES_PER_DAY} times in 24 hours (its redeliveries counted, whichever delivery is named); past that, 429 with \`Retry-After\`.`,
  tags: ["Tenant"],
  security: bearerAuth("tenant:admin"),
  middleware: [requireScope("tenant:admin"), idempotent()] as const,
  request: { params: DeliveryParamsSchema, headers: IdempotencyHeadersSchema },
  responses: {
    202: jsonContent(WebhookDeliverySchema, "The new delivery, pending."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409, 422),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id, delivery_id: deliveryId } = c.req.valid("param");
  const { tenantId } = c.var.principal;
  if (!isEndpointId(id) || !isDeliveryId(deliveryId)) throw new ApiError("not_found", DELIVERY_NOT_FOUND);
  const result = await tenantIndexStub(c.env, tenantId).redeliverWebhook(tenantId, id, deliveryId, auditContext(c));
  if (!result.ok) {
    if (result.reason === "pending") throw new ApiError("conflict", "The delivery is still pending: it is being tried on its schedule.");
    if (result.reason === "rate_limited") {
      throw new ApiError(
        "rate_limited",
        `This notification was redelivered to this endpoint too recently: at most once in ${REDELIVER_INTERVAL_MS / 1000} s and ${MAX_REDELIVERIES_PER_DAY} times in 24 hours.`,
        {
          retryAfterSeconds: result.retry_after_ms / 1000,
        },
      );
    }
    throw new ApiError("not_found", DELIVERY_NOT_FOUND);
  }
  return c.json(result.delivery, 202);
};
