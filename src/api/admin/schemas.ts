/** Schemas of the platform admin routes. */
import { z } from "@hono/zod-openapi";
import { MAX_SUBJECT_LENGTH } from "../../auth/platform-keys";
import { MAX_MODEL_PATTERN_CHARS, MAX_MODELS, MODEL_PATTERN } from "../../config";
import { decodeKeyCursor, decodeTimeIdCursor } from "../../shared/cursor";
import { MAX_SESSION_ID_CHARS } from "../../session-config/ids";
import { JURISDICTIONS } from "../../objects";
import { MAX_SHARDS } from "../../shared/shard-layout";
import {
  LimitOverridesSchema,
  LimitsSchema,
  pageQuerySchema,
  pageSchema,
  SessionStatusSchema,
  SessionSummarySchema,
  StatusCountsSchema,
  TenantIdSchema,
  TimestampSchema,
} from "../schemas";
import { TenantUsageSchema, UsageTotalsSchema } from "../usage";

export const TenantConfigSchema = z
  .object({
    tenant_id: TenantIdSchema,
    suspended: z.boolean(),
    limit_overrides: LimitOverridesSchema,
    effective_limits: LimitsSchema,
    models: z
      .array(z.string())
      .nullable()
      .openapi({ description: "The models the tenant's sessions may choose, narrowing the platform's `MODELS`; null: not narrowed." }),
    shards: z.number().int().min(1).max(MAX_SHARDS).openapi({
      description:
        "How many shards its new sessions are spread over (`PUT /v1/admin/tenants/{tenant_id}/shards`); 1: its index keeps them.",
    }),
    created_at: TimestampSchema,
  })
  .openapi("TenantConfig");

export const TenantShardsSchema = z
  .object({
    shards: z.number().int().min(1).max(MAX_SHARDS).openapi({
      description: "How many shards the sessions created from now on are spread over; 1 keeps them on the tenant's index.",
      example: 8,
    }),
  })
  .strict()
  .openapi("TenantShards");

export const ShardLayoutSchema = z
  .object({
    generation: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "Grows by one with each change of the count; sessions keep the generation they were made in." }),
    shards: z.number().int().min(1).max(MAX_SHARDS),
  })
  .openapi("ShardLayout");

export const TenantModelsSchema = z
  .object({
    models: z
      .array(
        z
          .string()
          .regex(MODEL_PATTERN, "Must be a model id, optionally prefixed with `anthropic:` or `openai:`, or a pattern ending in `*`.")
          // The pattern bounds the length; stated for clients, not checked twice.
          .openapi({ maxLength: MAX_MODEL_PATTERN_CHARS }),
      )
      .max(MAX_MODELS)
      .nullable()
      .openapi({
        description: "Ids or `prefix*` patterns, each allowed by the platform; null removes the narrowing.",
        example: ["anthropic:claude-sonnet-4-5", "openai:gpt-4o*"],
      }),
  })
  .strict()
  .openapi("TenantModels");

export const TenantDeletionSchema = z
  .object({
    status: z.enum(["deleting", "deleted"]),
    started_at: TimestampSchema,
    finished_at: TimestampSchema.nullable(),
    sessions_left: z.number().int().openapi({ description: "Sessions still to erase; 0 once deleted." }),
  })
  .openapi("TenantDeletion", { description: "A tenant's deletion: suspended at once, then everything of it erased in the background." });

export const JurisdictionSchema = z.enum(JURISDICTIONS).nullable().openapi("Jurisdiction", {
  description: "Where every Durable Object of the tenant is created (Cloudflare's jurisdictions); null: anywhere.",
});

export const TenantPlacementSchema = z.object({ jurisdiction: JurisdictionSchema }).strict().openapi("TenantPlacement");

export const AdminTenantSchema = TenantConfigSchema.extend({
  jurisdiction: JurisdictionSchema,
  usage: TenantUsageSchema,
  counts: StatusCountsSchema,
  // Null: the tenant was never asked to be deleted.
  deletion: z.union([TenantDeletionSchema, z.null()]),
}).openapi("AdminTenant");

export const DeleteTenantResultSchema = z
  .object({ tenant_id: TenantIdSchema, deletion: TenantDeletionSchema })
  .openapi("DeleteTenantResult");

/** Session objects one storage report may count: a page of the tenant's sessions. */
export const MAX_STORAGE_REPORT_SESSIONS = 100;

export const TenantStorageQuerySchema = z.object({
  session_ids: z
    .string()
    .max(MAX_STORAGE_REPORT_SESSIONS * (MAX_SESSION_ID_CHARS + 1))
    .regex(/^ses_[A-Za-z0-9_-]+(,ses_[A-Za-z0-9_-]+)*$/)
    .optional()
    .openapi({
      param: { name: "session_ids", in: "query" },
      description: `Comma-separated ids (at most ${MAX_STORAGE_REPORT_SESSIONS}) of session objects to count as well; the index lists none once the tenant is deleted.`,
    }),
});

const ObjectStorageSchema = z
  .object({
    object: z.enum(["tenant_index", "tenant_shard", "scheduler", "agent_store", "memory_store", "vault", "session"]),
    id: z.string().nullable().openapi({ description: "The session id, for a session object; `<generation>/<k>` for a shard." }),
    tables: z
      .number()
      .int()
      .openapi({ description: "The platform's tables; not SQLite's or the runtime's own (`sqlite_*`, `_cf_*`, `__miniflare_*`)." }),
    rows: z.number().int().openapi({ description: "Rows in those tables." }),
    kv_keys: z.number().int(),
    bytes: z.number().int().openapi({ description: "The SQLite database's size, including the runtime's own tables." }),
  })
  .openapi("ObjectStorage");

export const TenantStorageSchema = z
  .object({
    tenant_id: TenantIdSchema,
    objects: z.array(ObjectStorageSchema),
    registry: z.object({
      listed: z.boolean().openapi({ description: "The tenant's entry in the tenant list." }),
      deletion_recorded: z.boolean().openapi({ description: "The platform's record that the tenant was deleted (id and times only)." }),
    }),
    rows: z.number().int().openapi({ description: "Rows and key-value entries, every object counted." }),
  })
  .openapi("TenantStorage");

export const TenantListItemSchema = z
  .object({
    tenant_id: TenantIdSchema,
    created_at: TimestampSchema,
    suspended: z.boolean(),
    jurisdiction: JurisdictionSchema,
    usage: UsageTotalsSchema,
  })
  .openapi("TenantListItem");

export const TenantPageSchema = pageSchema(TenantListItemSchema, "TenantPage");
export const TenantListQuerySchema = pageQuerySchema((cursor) => decodeKeyCursor("tenants", cursor) !== null);

export const SuspendResultSchema = z
  .object({
    tenant_id: TenantIdSchema,
    suspended: z.literal(true),
    cancelled: z.number().int().openapi({ description: "Active sessions cancelled by the suspension." }),
  })
  .openapi("SuspendResult");

const SessionFilterFields = {
  status: SessionStatusSchema.optional(),
  // Subjects are at most this long (see the JWT rules), so a longer filter cannot match.
  created_by: z.string().min(1).max(MAX_SUBJECT_LENGTH).optional().openapi({ description: "The subject that created the sessions." }),
};

export const AdminSessionListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("sessions", cursor) !== null).extend({
  status: SessionFilterFields.status.openapi({ param: { name: "status", in: "query" } }),
  created_by: SessionFilterFields.created_by.openapi({ param: { name: "created_by", in: "query" } }),
});

export const SessionSummaryPageSchema = pageSchema(SessionSummarySchema, "SessionSummaryPage");

export const CancelSessionsBodySchema = z
  .object(SessionFilterFields)
  .strict()
  .openapi("CancelSessionsFilter", { description: "Which active sessions to cancel; `{}` cancels all of them." });

export const CancelResultSchema = z
  .object({ cancelled: z.number().int().openapi({ description: "How many sessions were cancelled." }) })
  .openapi("CancelResult");
