/** Schemas of the API key routes. */
import { z } from "@hono/zod-openapi";
import { KEY_ID_CHARS, KEY_ID_PATTERN, type ApiKeyRecord } from "../../auth/api-keys";
import { API_KEY_SCOPES, type Scope } from "../../auth/principal";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { pageQuerySchema, pageSchema, TimestampSchema } from "../schemas";

export const MAX_KEY_NAME_LENGTH = 100;
/** Longer than any time stamp has reason to be (full precision with an offset is 35). */
const MAX_TIMESTAMP_CHARS = 64;

export const ApiKeyScopeSchema = z.enum(API_KEY_SCOPES as [Scope, ...Scope[]]).openapi("ApiKeyScope");

export const ApiKeySchema = z
  .object({
    id: z.string().openapi({ example: "key_0123456789abcdef01234567" }),
    key_id: z.string().openapi({
      deprecated: true,
      description: "Deprecated: the same as `id`, which every other resource has too. Kept for one version; read `id`.",
      example: "key_0123456789abcdef01234567",
    }),
    name: z.string(),
    scopes: z.array(ApiKeyScopeSchema),
    created_by: z.string(),
    created_at: TimestampSchema,
    expires_at: TimestampSchema.nullable(),
    revoked_at: TimestampSchema.nullable(),
    last_used_at: TimestampSchema.nullable().openapi({
      description: "When the key last let a request in, to the minute: a use within a minute of the recorded one is not recorded again.",
    }),
    max_tokens_per_day: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Tokens the sessions this key creates may spend per UTC day; null: no budget of its own." }),
  })
  .openapi("ApiKey");

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().openapi({
    description:
      "The key itself, `ak_<tenant>.<key_id>.<secret>.<tag>` (the tag proves the platform issued it). Shown once: only its hash is stored.",
    example: "ak_YWNtZQ.key_0123456789abcdef01234567.….…",
  }),
}).openapi("CreatedApiKey");

export const CreateApiKeyBodySchema = z
  .object({
    name: z.string().trim().min(1).max(MAX_KEY_NAME_LENGTH).openapi({ example: "billing backend" }),
    scopes: z
      .array(ApiKeyScopeSchema)
      .min(1)
      .max(API_KEY_SCOPES.length)
      .refine((scopes) => new Set(scopes).size === scopes.length, "Scopes must not repeat.")
      .openapi({ description: "At most the scopes the creator holds." }),
    expires_at: z.iso
      .datetime({ offset: true })
      .max(MAX_TIMESTAMP_CHARS)
      .nullable()
      .optional()
      .openapi({ description: "A future time after which the key stops working; null or absent: never." }),
    max_tokens_per_day: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional().openapi({
      description:
        "Tokens the sessions this key creates (and their sub-agents) may spend per UTC day; past it a start through the key is a 429 and a run going waits in `waiting_budget` until the budget is raised (`PATCH /v1/api-keys/{key_id}`) or the next UTC day. Null or absent: none.",
    }),
  })
  .strict()
  .openapi("CreateApiKey");

export const UpdateApiKeyBodySchema = z
  .object({
    max_tokens_per_day: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().openapi({
      description:
        "The key's new daily token budget; null: none. Sessions waiting in `waiting_budget` on this key's budget are told, and go on if it now allows.",
    }),
  })
  .strict()
  .openapi("UpdateApiKey");

export const ApiKeyPageSchema = pageSchema(ApiKeySchema, "ApiKeyPage");

export const ApiKeyListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("api_keys", cursor) !== null);

export const KeyIdParamsSchema = z.object({
  key_id: z
    .string()
    .regex(KEY_ID_PATTERN, "Not a key id.")
    .openapi({ param: { name: "key_id", in: "path" }, maxLength: KEY_ID_CHARS, example: "key_0123456789abcdef01234567" }),
});

export type ApiKey = z.infer<typeof ApiKeySchema>;

/** The public view of a stored key: never the hash, whatever else the store carries. */
export function toApiKey(record: Omit<ApiKeyRecord, "hash">): ApiKey {
  return {
    id: record.key_id,
    key_id: record.key_id,
    name: record.name,
    scopes: record.scopes.filter((scope) => API_KEY_SCOPES.includes(scope)),
    created_by: record.created_by,
    created_at: record.created_at,
    expires_at: record.expires_at,
    revoked_at: record.revoked_at,
    last_used_at: record.last_used_at,
    max_tokens_per_day: record.max_tokens_per_day ?? null,
  };
}
