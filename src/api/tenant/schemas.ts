/** Schemas of the caller's own tenant. */
import { z } from "@hono/zod-openapi";
import { MAX_ALLOWED_ORIGINS, MAX_ORIGIN_CHARS } from "../../egress/allowed-origins";
import { MAX_SESSION_RETENTION_DAYS, MIN_SESSION_RETENTION_DAYS } from "../../limits";
import { FRAMING_HEADERS } from "../../egress/framing-headers";
import { credentialHeadersSchema, MAX_WEBHOOK_URL_CHARS } from "../../session-config/request-schemas";
import { LimitsSchema, StatusCountsSchema, TenantIdSchema, TimestampSchema } from "../schemas";
import { TenantUsageSchema } from "../usage";
import { REDACTION_DETECTORS, REDACTION_TARGETS } from "../../shared/redaction/settings";

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
    previous_expires_at: TimestampSchema.nullable().openapi({
      description: "After a rotation, the replaced secret also signs every call until this time (24 h); null when there is none.",
    }),
  })
  .openapi("WebhookSecret");

const WebhookOriginsSchema = z
  .array(z.string().min(1).max(MAX_ORIGIN_CHARS).openapi({ format: "uri" }))
  .max(MAX_ALLOWED_ORIGINS)
  .nullable()
  .openapi({
    description:
      "Origins (`https://host[:port]`) that webhook tools may use; a session declaring another is refused with 400, " +
      "and a call to another is refused at call time. Stored normalized. Null: any origin the URL guard allows.",
    example: ["https://hooks.example.com"],
  });

const RetentionDaysSchema = z
  .number()
  .int()
  .min(MIN_SESSION_RETENTION_DAYS)
  .max(MAX_SESSION_RETENTION_DAYS)
  .nullable()
  .openapi({
    description:
      "Days a session is kept after its last change, then erased as `DELETE /v1/sessions/{id}` erases it, once it is idle or " +
      "finished (never while it runs, is queued or paused, or waits for an approval, a tool output or sub-agents). " +
      "Null: the platform default (none unless the operator set one). Memory items keep their own TTLs.",
    example: 90,
  });

/** Headers the export sets itself; a tenant's value would break the request. */
const FORBIDDEN_TRACES_HEADERS: ReadonlySet<string> = new Set([...FRAMING_HEADERS, "content-type", "traceparent", "tracestate"]);

export const TracesSettingsSchema = z
  .object({
    endpoint: z.string().min(1).max(MAX_WEBHOOK_URL_CHARS).openapi({
      format: "uri",
      description:
        "The collector's OTLP/HTTP base URL; spans are posted as JSON to `{endpoint}/v1/traces`. Checked like a webhook tool's URL (https, public) and held to `webhook_origins`.",
      example: "https://otel.example.com",
    }),
    headers: credentialHeadersSchema(FORBIDDEN_TRACES_HEADERS)
      .optional()
      .openapi({
        description: "Sent with every export, e.g. `Authorization`. Write-only: every response shows each value as `********`.",
        example: { Authorization: "Bearer <token>" },
      }),
    capture_content: z.boolean().optional().openapi({
      description: "Put message content (the run's input, answers, tool arguments and results) on the spans. Default false: none.",
    }),
  })
  .strict()
  .openapi("TracesSettings");

const TracesFieldSchema = TracesSettingsSchema.nullable().openapi({
  description: "Where each run's trace is exported (OpenTelemetry, GenAI semantic conventions); null: not exported. See docs/traces.md.",
});

const RedactionDetectorSchema = z.enum(REDACTION_DETECTORS).openapi("RedactionDetector");
const RedactionTargetSchema = z.enum(REDACTION_TARGETS).openapi("RedactionTarget");

export const RedactionSettingsSchema = z
  .object({
    detectors: z
      .array(RedactionDetectorSchema)
      .min(1)
      .max(REDACTION_DETECTORS.length * 2)
      .openapi({
        description:
          "What to find: `email`; `phone` (international with `+`, and national numbers written with separators); `credit_card` " +
          "(13 to 19 digits, Luhn-checked); `iban` (mod-97 checked); `secret` (AWS access key ids, `sk-…` keys, GitHub and Slack " +
          "tokens, JWTs, PEM private keys, bearer tokens).",
        example: ["email", "credit_card", "secret"],
      }),
    apply_to: z
      .array(RedactionTargetSchema)
      .min(1)
      .max(REDACTION_TARGETS.length * 2)
      .openapi({
        description:
          "Where: `user_input` (each message as it enters a session), `tool_output` (each tool result), `model_output` (the text of " +
          "each answer). Applied before the content is stored or sent to a model; runs started afterwards use the new setting.",
        example: ["user_input", "tool_output"],
      }),
  })
  .strict()
  .openapi("RedactionSettings");

const RedactionFieldSchema = RedactionSettingsSchema.nullable().openapi({
  description:
    "Each match is replaced by `[redacted:<detector>]`; the original is never stored. Null: nothing redacted. See docs/redaction.md.",
});

export const TenantSettingsSchema = z
  .object({
    webhook_origins: WebhookOriginsSchema,
    session_retention_days: RetentionDaysSchema,
    traces: TracesFieldSchema,
    redaction: RedactionFieldSchema,
  })
  .openapi("TenantSettings");

export const PutTenantSettingsRequestSchema = z
  .object({
    webhook_origins: WebhookOriginsSchema,
    // Optional so that a client written before retention existed still puts valid settings; omitted is null, as a PUT replaces the whole.
    session_retention_days: RetentionDaysSchema.optional(),
    traces: TracesFieldSchema.optional().openapi({ description: "Absent: null (the request replaces every setting)." }),
    redaction: RedactionFieldSchema.optional().openapi({ description: "Absent: null (the request replaces every setting)." }),
  })
  .strict()
  .openapi("PutTenantSettingsRequest");
