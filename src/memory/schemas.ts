/**
 * The memory request and response bodies as zod schemas: the routes validate with them, and the
 * memory tools check a model's input with the same field schemas.
 */
import { z } from "@hono/zod-openapi";
import { refuseProtoKey } from "../shared/prototype-keys";
import { CURSOR_PATTERN, decodeKeyCursor, MAX_CURSOR_CHARS } from "../shared/cursor";
import { jsonDepth, MAX_JSON_DEPTH } from "../shared/json-depth";
import {
  DEFAULT_SEARCH_LIMIT,
  FILTER_FIELD_PATTERN,
  MAX_FILTER_FIELDS,
  MAX_KEY_CHARS,
  MAX_QUERY_CHARS,
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_OFFSET,
  MAX_TTL_SECONDS,
  MAX_VALUE_CHARS,
  MIN_TTL_SECONDS,
} from "./bounds";
import {
  JOINED_NAMESPACE_PATTERN,
  MAX_NAMESPACE_CHARS,
  MAX_NAMESPACE_SEGMENTS,
  MAX_SEGMENT_CHARS,
  SEGMENT_PATTERN,
} from "../session-config/memory-namespace";

const SegmentSchema = z
  .string()
  .max(MAX_SEGMENT_CHARS, { abort: true })
  .regex(SEGMENT_PATTERN, `Must be 1-${MAX_SEGMENT_CHARS} letters, digits, \`_\`, \`@\`, \`:\` or \`-\`.`);

export const NamespaceSchema = z
  .array(SegmentSchema)
  .min(1)
  .max(MAX_NAMESPACE_SEGMENTS)
  .openapi("MemoryNamespace", {
    description: `1-${MAX_NAMESPACE_SEGMENTS} segments; in a query string, joined by \`.\`.`,
    example: ["users", "u_123"],
  });

export const NamespacePrefixSchema = z.array(SegmentSchema).max(MAX_NAMESPACE_SEGMENTS);

export const MemoryKeySchema = z.string().min(1).max(MAX_KEY_CHARS).openapi({ example: "preferences" });

export const MemoryValueSchema = z
  .preprocess(refuseProtoKey, z.record(z.string(), z.unknown()))
  .refine((value) => JSON.stringify(value).length <= MAX_VALUE_CHARS, `Must be at most ${MAX_VALUE_CHARS} characters as JSON.`)
  .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, `Must be nested at most ${MAX_JSON_DEPTH} levels deep.`)
  .openapi({
    "x-max-json-chars": MAX_VALUE_CHARS,
    description: "A JSON object; its strings are what search reads.",
    example: { language: "French", tone: "formal" },
  });

export const PutMemoryItemSchema = z
  .object({
    namespace: NamespaceSchema,
    key: MemoryKeySchema,
    value: MemoryValueSchema,
    ttl_seconds: z
      .number()
      .int()
      .min(MIN_TTL_SECONDS)
      .max(MAX_TTL_SECONDS)
      .nullable()
      .optional()
      .openapi({ description: "Gone this long after the write; kept until deleted when absent or null." }),
    refresh_ttl: z.boolean().optional().openapi({ description: "Each read restarts the time to live." }),
  })
  .strict()
  .openapi("PutMemoryItem");

const FilterValueSchema = z.union([z.string().max(MAX_VALUE_CHARS), z.number(), z.boolean(), z.null()]);

export const MemorySearchSchema = z
  .object({
    namespace_prefix: NamespacePrefixSchema.default([]).openapi({
      description: "Only items at or below this namespace; every item of the tenant when empty.",
    }),
    query: z.string().min(1).max(MAX_QUERY_CHARS).optional().openapi({
      description: "Ranks by BM25 over the items' text (keys and string values); newest first without it.",
      example: "language preference",
    }),
    filter: z
      .record(z.string().regex(FILTER_FIELD_PATTERN, "Not a field name."), FilterValueSchema)
      .refine((filter) => Object.keys(filter).length <= MAX_FILTER_FIELDS, `At most ${MAX_FILTER_FIELDS} fields.`)
      .default({})
      .openapi({ description: "Top-level fields of the value and the scalar each must equal.", example: { tone: "formal" } }),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).default(DEFAULT_SEARCH_LIMIT),
    offset: z.number().int().min(0).max(MAX_SEARCH_OFFSET).default(0),
  })
  .strict()
  .openapi("MemorySearch");

export const ListNamespacesSchema = z
  .object({
    prefix: NamespacePrefixSchema.default([]),
    max_depth: z
      .number()
      .int()
      .min(1)
      .max(MAX_NAMESPACE_SEGMENTS)
      .optional()
      .openapi({ description: "Namespaces are cut to this many segments." }),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z
      .string()
      .max(MAX_CURSOR_CHARS)
      .regex(CURSOR_PATTERN, { message: "Not a cursor returned by this list.", abort: true })
      .refine((cursor) => decodeKeyCursor("memory_namespaces", cursor) !== null, "Not a cursor returned by this list.")
      .optional()
      .openapi({ description: "The `next_cursor` of the previous page." }),
  })
  .strict()
  .openapi("ListMemoryNamespaces");

export const MemoryItemSchema = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    value: z.record(z.string(), z.unknown()),
    version: z.number().int().min(1),
    created_by: z
      .string()
      .openapi({ description: "Who wrote the first version: a subject, or `session:<id>` for a session's memory tool." }),
    created_at: z.string(),
    updated_at: z.string(),
    expires_at: z.string().nullable(),
  })
  .openapi("MemoryItem");

export const ScoredMemoryItemSchema = MemoryItemSchema.extend({
  score: z.number().nullable().openapi({ description: "Higher is a better match; null without a query." }),
}).openapi("ScoredMemoryItem");

export const MemoryVersionSchema = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    version: z.number().int(),
    value: z.record(z.string(), z.unknown()),
    created_by: z.string(),
    created_at: z.string(),
  })
  .openapi("MemoryVersion");

/** `?namespace=a.b&key=k` */
export const ItemQuerySchema = z.object({
  namespace: z
    .string()
    .max(MAX_NAMESPACE_CHARS)
    .regex(JOINED_NAMESPACE_PATTERN, `Must be 1-${MAX_NAMESPACE_SEGMENTS} segments joined by \`.\`.`)
    .openapi({ param: { name: "namespace", in: "query" }, example: "users.u_123" }),
  key: MemoryKeySchema.openapi({ param: { name: "key", in: "query" } }),
});
