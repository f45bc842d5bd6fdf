/** Schemas of the audit-log routes. */
import { z } from "@hono/zod-openapi";
import { AUDIT_ACTIONS } from "../../audit/actions";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { pageQuerySchema, pageSchema, TenantIdSchema, TimestampSchema } from "../schemas";

/** Longer than any time stamp has reason to be (full precision with an offset is 35). */
const MAX_TIMESTAMP_CHARS = 64;
const MAX_ACTOR_CHARS = 256;

export const AuditActionSchema = z.enum(AUDIT_ACTIONS).openapi("AuditAction");

export const AuditActorSchema = z
  .object({
    sub: z.string(),
    via: z.enum(["jwt", "api_key"]),
    key_id: z
      .string()
      .nullable()
      .openapi({ description: "The API key behind the request (or the token exchanged from one); null for a JWT." }),
  })
  .openapi("AuditActor");

export const AuditEntrySchema = z
  .object({
    id: z.string().openapi({ example: "aud_3kTMd9wq0Zb1mJx7yQfR2sLp" }),
    at: TimestampSchema,
    tenant_id: z.string(),
    // Null for the platform's own changes (an approval that expired); the description is on the entry.
    actor: z.union([AuditActorSchema, z.null()]),
    action: AuditActionSchema,
    target: z.object({ type: z.string(), id: z.string() }),
    request_id: z.string().nullable().openapi({
      description:
        "The platform's own id of the request that made the change (a problem document's `request_id`); null for the platform's own changes.",
    }),
    client_request_id: z.string().nullable().openapi({
      description:
        "The `X-Request-Id` the caller sent with that request, when it sent a usable one: chosen by the caller, so it names the request only as the caller did.",
    }),
    client_ip: z.string().nullable().openapi({
      description:
        "The client's address, from the header the deployment trusts (`TRUSTED_CLIENT_IP_HEADER`, Cloudflare's `CF-Connecting-IP` by default); null where none is trusted, as under a local runtime.",
    }),
    details: z
      .record(z.string(), z.unknown())
      .openapi({ description: "What changed: `before` and `after` for settings, limits and models. Never a secret." }),
  })
  .openapi("AuditEntry");

export const AuditEntryPageSchema = pageSchema(AuditEntrySchema, "AuditEntryPage");

const time = (description: string) =>
  z.iso.datetime({ offset: true }).max(MAX_TIMESTAMP_CHARS).optional().openapi({ description, example: "2026-01-01T00:00:00Z" });

export const AuditLogQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("audit_log", cursor) !== null).extend({
  action: AuditActionSchema.optional().openapi({ description: "Only entries of this action." }),
  actor: z.string().min(1).max(MAX_ACTOR_CHARS).optional().openapi({ description: "Only entries whose actor has this `sub`." }),
  since: time("Only entries at or after this time."),
  until: time("Only entries before this time."),
});

export const AdminAuditLogQuerySchema = AuditLogQuerySchema.extend({
  tenant_id: TenantIdSchema.optional().openapi({
    description: "Every entry of this tenant; without it, the platform actions of every tenant.",
  }),
});
