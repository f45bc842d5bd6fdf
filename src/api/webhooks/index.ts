/**
 * The calls the platform makes to tenants, as OpenAPI `webhooks`: only documented here (the
 * agent's webhook tool sends them), so generated servers and docs show the signed contract.
 */
import type { App } from "../context";
import { NO_AUTH } from "../security";
import { WebhookToolCallHeadersSchema, WebhookToolCallSchema, WebhookToolResultSchema } from "./schemas";

export function registerWebhooks(app: App): void {
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
      "5XX": { description: "A failure that may pass: sent again (3 tries in all) unless the tool is `at_most_once`; then an error result." },
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
