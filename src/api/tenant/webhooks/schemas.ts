/** Schemas of the tenant's status-webhook endpoints and their delivery log. */
import { z } from "@hono/zod-openapi";
import { DELIVERY_ID_PATTERN, ENDPOINT_ID_PATTERN } from "../../../notifications/ids";
import { MAX_DELIVERY_ATTEMPTS } from "../../../notifications/schedule";
import { NOTIFICATION_TYPES } from "../../../notifications/types";
import { decodeTimeIdCursor } from "../../../shared/cursor";
import { DELIVERY_STATUSES } from "../../../notifications/delivery-store";
import { MAX_ENDPOINT_DESCRIPTION_CHARS, MAX_ENDPOINT_URL_CHARS, MAX_WEBHOOK_ENDPOINTS } from "../../../notifications/endpoint-store";
import { pageQuerySchema, pageSchema, TimestampSchema } from "../../schemas";

export const NotificationTypeSchema = z.enum(NOTIFICATION_TYPES).openapi("NotificationType", {
  description:
    "`session.done`, `session.failed`, `session.cancelled`: the run ended with that status. `session.waiting_approval`, " +
    "`session.waiting_tool_output`: the session waits for a person's decision or a client tool's output. " +
    "`session.waiting_budget`: the run reached a budget and waits, holding no run slot, until it is raised or renews. Sent each time the session enters the status.",
});

const EndpointIdSchema = z.string().openapi({ pattern: ENDPOINT_ID_PATTERN.source, example: "wh_Jq7mV2xkPz9w4LbNc8RtYd3F" });

export const WebhookEndpointSchema = z
  .object({
    id: EndpointIdSchema,
    url: z
      .string()
      .openapi({ description: "Where notifications are POSTed, as stored (normalized).", example: "https://ops.example.com/agent-events" }),
    event_types: z.array(NotificationTypeSchema).openapi({ description: "The types this endpoint receives." }),
    description: z.string().nullable(),
    created_by: z.string().openapi({ description: "The subject that registered it." }),
    created_at: TimestampSchema,
  })
  .openapi("WebhookEndpoint");

export const WebhookEndpointPageSchema = pageSchema(WebhookEndpointSchema, "WebhookEndpointPage");

export const CreateWebhookEndpointRequestSchema = z
  .object({
    url: z.string().max(MAX_ENDPOINT_URL_CHARS).openapi({
      format: "uri",
      description: "An https URL on the public internet, checked like a webhook tool's URL and held to the tenant's `webhook_origins`.",
      example: "https://ops.example.com/agent-events",
    }),
    event_types: z
      .array(NotificationTypeSchema)
      .min(1)
      .max(NOTIFICATION_TYPES.length)
      .refine((types) => new Set(types).size === types.length, "Event types must not repeat."),
    description: z.string().trim().min(1).max(MAX_ENDPOINT_DESCRIPTION_CHARS).nullable().optional().openapi({ example: "on-call pager" }),
  })
  .strict()
  .openapi("CreateWebhookEndpointRequest", { description: `At most ${MAX_WEBHOOK_ENDPOINTS} endpoints per tenant.` });

export const DeliveryStatusSchema = z.enum(DELIVERY_STATUSES).openapi("WebhookDeliveryStatus", {
  description:
    "`pending`: owed, tried again at `next_attempt_at`. `succeeded`: the receiver answered 2xx. `failed`: every attempt failed, or the URL was refused.",
});

export const WebhookDeliverySchema = z
  .object({
    id: z.string().openapi({ example: "dlv_Hk3mV2xkPz9w4LbNc8RtYd3F" }),
    endpoint_id: EndpointIdSchema.nullable(),
    event_id: z.string().openapi({
      description: "The notification's `id`: the same on every attempt and redelivery.",
      example: "evt_Pq9mV2xkPz9w4LbNc8RtYd3F",
    }),
    event_type: NotificationTypeSchema,
    session_id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    status: DeliveryStatusSchema,
    attempts: z
      .number()
      .int()
      .openapi({ description: `Attempts made so far; at most ${MAX_DELIVERY_ATTEMPTS}.` }),
    next_attempt_at: TimestampSchema.nullable().openapi({ description: "When it is tried next; null unless pending." }),
    last_attempt_at: TimestampSchema.nullable(),
    response_status: z.number().int().nullable().openapi({ description: "The HTTP status of the last answer; null when there was none." }),
    error: z.string().nullable().openapi({ description: "Why the last attempt failed; null after a success." }),
    created_at: TimestampSchema,
    settled_at: TimestampSchema.nullable().openapi({ description: "When it succeeded or failed for good." }),
    redelivery_of: z.string().nullable().openapi({ description: "For a redelivery, the delivery it repeats." }),
  })
  .openapi("WebhookDelivery");

export const WebhookDeliveryPageSchema = pageSchema(WebhookDeliverySchema, "WebhookDeliveryPage");

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
const EndpointIdParam = z
  .string()
  .max(64)
  .openapi({ param: { name: "id", in: "path" }, pattern: ENDPOINT_ID_PATTERN.source, example: "wh_Jq7mV2xkPz9w4LbNc8RtYd3F" });

export const EndpointParamsSchema = z.object({ id: EndpointIdParam });

export const DeliveryParamsSchema = z.object({
  id: EndpointIdParam,
  delivery_id: z
    .string()
    .max(64)
    .openapi({ param: { name: "delivery_id", in: "path" }, pattern: DELIVERY_ID_PATTERN.source, example: "dlv_Hk3mV2xkPz9w4LbNc8RtYd3F" }),
});

export const EndpointListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("webhooks", cursor) !== null);

export const DeliveryListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("deliveries", cursor) !== null).extend({
  status: DeliveryStatusSchema.optional().openapi({ param: { name: "status", in: "query" } }),
});

export const ENDPOINT_NOT_FOUND = "No such webhook endpoint.";
export const DELIVERY_NOT_FOUND = "No such delivery for this endpoint.";

export function isEndpointId(value: string): boolean {
  return ENDPOINT_ID_PATTERN.test(value);
}

export function isDeliveryId(value: string): boolean {
  return DELIVERY_ID_PATTERN.test(value);
}
