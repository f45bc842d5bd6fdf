/**
 * The request the platform sends to a webhook tool's URL and the answers it understands, for
 * the document's `webhooks`: the contract a tenant's backend implements.
 */
import { z } from "@hono/zod-openapi";
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, TIMESTAMP_HEADER } from "../../agents/tools/webhook-signature";
import { TenantIdSchema } from "../schemas";

export const WebhookToolCallSchema = z
  .object({
    tenant_id: TenantIdSchema,
    session_id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    created_by: z.string().openapi({ description: "The subject that created the session.", example: "billing-backend" }),
    tool_call_id: z.string().openapi({ description: "The model's id for this call.", example: "toolu_01A09q90qw90lq917835lq9" }),
    name: z.string().openapi({ description: "The tool's name in the session.", example: "lookup_order" }),
    url: z.string().openapi({ description: "The URL this request was sent to, as the session declared it.", example: "https://shop.example.com/tools/lookup-order" }),
    input: z.record(z.string(), z.unknown()).openapi({ description: "The model's input, already valid for the tool's `input_schema` (an object).", example: { order_id: "ord_123456" } }),
  })
  .openapi("WebhookToolCall", { description: "The body the platform POSTs to a webhook tool's URL." });

export const WebhookToolResultSchema = z
  .object({
    output: z.string().openapi({ description: "What the model sees as the tool's result; cut to the tenant's `max_tool_output_chars`." }),
    is_error: z.boolean().optional().openapi({ description: "The tool failed; the output says why." }),
  })
  .openapi("WebhookToolResult", { example: { output: "Order ord_123456: shipped on Monday, due Thursday.", is_error: false } });

export const WebhookToolCallHeadersSchema = z.object({
  [IDEMPOTENCY_HEADER]: z.string().openapi({
    param: { name: IDEMPOTENCY_HEADER, in: "header" },
    description: "`<session_id>:<tool_call_id>`: the same on every retry of this call and after a restart. Deduplicate on it.",
    example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F:toolu_01A09q90qw90lq917835lq9",
  }),
  [TIMESTAMP_HEADER]: z.string().regex(/^\d+$/).openapi({
    param: { name: TIMESTAMP_HEADER, in: "header" },
    description: `Unix seconds when this try was signed; refuse one more than ${SIGNATURE_TOLERANCE_SECONDS} s from your clock.`,
    example: "1767268800",
  }),
  [SIGNATURE_HEADER]: z.string().openapi({
    param: { name: SIGNATURE_HEADER, in: "header" },
    description:
      '`v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>` with the tenant\'s webhook secret (`GET /v1/tenant/webhook-secret`). ' +
      "During a rotation it lists both, newest first (`v1=<new>,v1=<old>`): accept any match, compared in constant time.",
    example: "v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  }),
});
