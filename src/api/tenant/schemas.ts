/** Schemas of the caller's own tenant. */
import { z } from "@hono/zod-openapi";
import { LimitsSchema, StatusCountsSchema, TenantIdSchema, TimestampSchema } from "../schemas";
import { TenantUsageSchema } from "../usage";

export const TenantSchema = z
  .object({
    tenant_id: TenantIdSchema,
    suspended: z.boolean(),
    limits: LimitsSchema,
    usage: TenantUsageSchema,
    counts: StatusCountsSchema,
    created_at: TimestampSchema,
  })
  .openapi("Tenant");

export const WebhookSecretSchema = z
  .object({
    secret: z.string().openapi({ description: "The HMAC-SHA256 key that signs webhook tool calls." }),
    created_at: TimestampSchema,
  })
  .openapi("WebhookSecret");
