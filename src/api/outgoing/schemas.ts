/**
 * The requests the platform sends to tenants' URLs (a webhook tool's call, a status
 * notification) and the answers it understands, for the document's `webhooks`: the contract a
 * tenant's backend implements.
 */
import { z } from "@hono/zod-openapi";
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, TIMESTAMP_HEADER } from "../../egress/call-signature";
import { EVENT_TYPE_HEADER } from "../../notifications/deliver";
import { SessionStatusSchema, StopReasonSchema, TenantIdSchema, TimestampSchema, UsageSchema } from "../schemas";
import { NotificationTypeSchema } from "../tenant/webhooks/schemas";

export const WebhookToolCallSchema = z
  .object({
    tenant_id: TenantIdSchema,
    session_id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    created_by: z.string().openapi({ description: "The subject that created the session.", example: "billing-backend" }),
    tool_call_id: z.string().openapi({ description: "The model's id for this call.", example: "toolu_01A09q90qw90lq917835lq9" }),
    name: z.string().openapi({ description: "The tool's name in the session.", example: "lookup_order" }),
    url: z.string().openapi({
      description: "The URL this request was sent to, as the session declared it.",
      example: "https://shop.example.com/tools/lookup-order",
    }),
    input: z.record(z.string(), z.unknown()).openapi({
      description: "The model's input, already valid for the tool's `input_schema` (an object).",
      example: { order_id: "ord_123456" },
    }),
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
  [TIMESTAMP_HEADER]: z
    .string()
    .regex(/^\d+$/)
    .openapi({
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

// ---- status notifications ------------------------------------------------------------------

const SIGNATURE_DESCRIPTION =
  '`v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>` with the tenant\'s webhook secret (`GET /v1/tenant/webhook-secret`). ' +
  "During a rotation it lists both, newest first (`v1=<new>,v1=<old>`): accept any match, compared in constant time.";

export const WaitingToolCallSchema = z
  .object({
    id: z.string().openapi({ example: "toolu_01A09q90qw90lq917835lq9" }),
    name: z.string().openapi({ example: "refund" }),
    status: z.enum(["waiting_approval", "waiting_tool_output"]),
    approval_expires_at: TimestampSchema.nullable().openapi({
      description: "When an undecided approval is denied as expired; null without `approval_timeout_seconds`.",
    }),
  })
  .openapi("WaitingToolCall");

export const NotificationSessionSchema = z
  .object({
    id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    tenant_id: TenantIdSchema,
    created_by: z.string(),
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
    error: z.string().nullable(),
    model: z.string(),
    usage: UsageSchema,
    metadata: z.record(z.string(), z.string()).nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema.openapi({ description: "The time of the change this notification is about." }),
    waiting_tool_calls: z.array(WaitingToolCallSchema).openapi({ description: "The calls the session waits on; empty unless it waits." }),
  })
  .openapi("NotificationSession", {
    description: "The session as it stood at the change, without its system prompt, tools and context (`GET /v1/sessions/{id}` has them).",
  });

export const NotificationSchema = z
  .object({
    id: z.string().openapi({
      description: "The event id: the same on every retry and redelivery. Deduplicate on it.",
      example: "evt_Pq9mV2xkPz9w4LbNc8RtYd3F",
    }),
    type: NotificationTypeSchema,
    created_at: TimestampSchema,
    tenant_id: TenantIdSchema,
    session: NotificationSessionSchema,
  })
  .openapi("Notification", { description: "The body the platform POSTs to status-webhook endpoints and to a session's `notify_url`." });

export const NotificationHeadersSchema = z.object({
  [IDEMPOTENCY_HEADER]: z.string().openapi({
    param: { name: IDEMPOTENCY_HEADER, in: "header" },
    description: "The event id (the body's `id`): the same on every retry and redelivery. Deduplicate on it.",
    example: "evt_Pq9mV2xkPz9w4LbNc8RtYd3F",
  }),
  [EVENT_TYPE_HEADER]: z
    .string()
    .openapi({ param: { name: EVENT_TYPE_HEADER, in: "header" }, description: "The body's `type`.", example: "session.waiting_approval" }),
  [TIMESTAMP_HEADER]: z
    .string()
    .regex(/^\d+$/)
    .openapi({
      param: { name: TIMESTAMP_HEADER, in: "header" },
      description: `Unix seconds when this attempt was signed; refuse one more than ${SIGNATURE_TOLERANCE_SECONDS} s from your clock.`,
      example: "1767268800",
    }),
  [SIGNATURE_HEADER]: z.string().openapi({
    param: { name: SIGNATURE_HEADER, in: "header" },
    description: SIGNATURE_DESCRIPTION,
    example: "v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
  }),
});
