/**
 * The calls the platform makes to tenants, as OpenAPI `webhooks`: only documented here (the
 * session object's webhook tools and the tenant index's status webhooks send them), so generated
 * servers and docs show the signed contract.
 */
import { MAX_DELIVERY_ATTEMPTS } from "../../notifications/schedule";
import type { App } from "../context";
import { NO_AUTH } from "../security";
import {
  NotificationHeadersSchema,
  NotificationSchema,
  WebhookToolCallHeadersSchema,
  WebhookToolCallSchema,
  WebhookToolResultSchema,
} from "./schemas";

export function registerOutgoingCalls(app: App): void {
  app.openAPIRegistry.registerWebhook({
    method: "post",
    path: "toolCall",
    operationId: "receiveToolCall",
    summary: "A webhook tool is called",
    description:
      "Sent to a webhook tool's `url` for each call the model makes. Verify the signature before acting. " +
      "An idempotent tool's call is sent again with the same `Idempotency-Key` after a 5xx, a network error or a restart; " +
      "an `at_most_once` tool's call is sent once. Answer within 30 s; at most 1 MiB of the answer is read.",
    tags: ["Webhooks"],
    // The request is authenticated by its signature header, not by a security scheme.
    security: NO_AUTH,
    request: {
      headers: WebhookToolCallHeadersSchema,
      body: { required: true, content: { "application/json": { schema: WebhookToolCallSchema, example: WEBHOOK_EXAMPLE } } },
    },
    responses: {
      200: {
        description: "The result. Any other 2xx body is taken as the output text, as it is.",
        content: { "application/json": { schema: WebhookToolResultSchema } },
      },
      "4XX": { description: "The call is refused: the model gets an error result with the answer's text. Not sent again." },
      "5XX": {
        description: "A failure that may pass: sent again (3 tries in all) unless the tool is `at_most_once`; then an error result.",
      },
    },
  });
  app.openAPIRegistry.registerWebhook({
    method: "post",
    path: "sessionNotification",
    operationId: "receiveSessionNotification",
    summary: "A session needs someone, or its run ended",
    description:
      "Sent to each status-webhook endpoint (`POST /v1/tenant/webhooks`) that lists the notification's type, and to the session's " +
      "`notify_url` for every type. Verify the signature before acting. Any answer other than 2xx within 10 s (a redirect too) is " +
      `a failure, tried again after 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 6 h, 8 h and 8 h (±10 %): ${MAX_DELIVERY_ATTEMPTS} attempts over about 30 hours. ` +
      "Delivery is at least once and not in order: deduplicate on `id` and order by `session.updated_at`.",
    tags: ["Webhooks"],
    security: NO_AUTH,
    request: {
      headers: NotificationHeadersSchema,
      body: { required: true, content: { "application/json": { schema: NotificationSchema, example: NOTIFICATION_EXAMPLE } } },
    },
    responses: {
      "2XX": { description: "Delivered; the body of the answer is ignored." },
      default: { description: "Not delivered: tried again on the schedule." },
    },
  });
}

const WEBHOOK_EXAMPLE = {
  tenant_id: "acme",
  session_id: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F",
  created_by: "billing-backend",
  tool_call_id: "toolu_01A09q90qw90lq917835lq9",
  name: "lookup_order",
  url: "https://shop.example.com/tools/lookup-order",
  input: { order_id: "ord_123456" },
};

const NOTIFICATION_EXAMPLE = {
  id: "evt_Pq9mV2xkPz9w4LbNc8RtYd3F",
  type: "session.waiting_approval",
  created_at: "2026-01-01T12:00:00.000Z",
  tenant_id: "acme",
  session: {
    id: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F",
    tenant_id: "acme",
    created_by: "billing-backend",
    status: "waiting_approval",
    stop_reason: null,
    error: null,
    model: "claude-sonnet-4-5",
    usage: { steps: 1, input_tokens: 812, output_tokens: 96, cache_read_tokens: 0, cache_write_tokens: 0 },
    metadata: { ticket: "T-1234" },
    created_at: "2026-01-01T11:59:58.000Z",
    updated_at: "2026-01-01T12:00:00.000Z",
    waiting_tool_calls: [
      { id: "toolu_01A09q90qw90lq917835lq9", name: "refund", status: "waiting_approval", approval_expires_at: "2026-01-01T13:00:00.000Z" },
    ],
  },
};
