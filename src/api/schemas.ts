/**
 * Schemas and OpenAPI helpers shared by several resources: pagination, tenant ids, limits,
 * usage and session summaries. Each named schema becomes a component of the document.
 */
import { MAX_TITLE_CHARS } from "../session-config/title";
import { FINAL_STATUSES, SESSION_STATUSES, type SessionStatus, STOP_REASONS } from "../session-config/types";
import { z } from "@hono/zod-openapi";
import { MAX_TENANT_ID_CHARS, TENANT_ID_PATTERN } from "../auth/principal";
import { limitsSchema, partialLimitsSchema } from "../limits";
import { CURSOR_PATTERN, MAX_CURSOR_CHARS } from "../shared/cursor";

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 200;

/**
 * An integer in a query string: decimal digits only. Anything else stays a string and is refused
 * as one; `Number()` (and so `z.coerce`) would read `0x10`, `+5`, ` 2` or `1e3` as numbers.
 */
export function queryIntegerSchema(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\d{1,16}$/.test(value) ? Number(value) : value),
    z.number().int().min(min).max(max),
  );
}

/** `?limit=&cursor=`; `isCursor` rejects a cursor the store did not make (400, not a 500 from the store). */
export function pageQuerySchema(isCursor: (cursor: string) => boolean) {
  return z.object({
    limit: queryIntegerSchema(1, MAX_PAGE_LIMIT)
      .default(DEFAULT_PAGE_LIMIT)
      .openapi({ param: { name: "limit", in: "query" }, description: "Page size, 1-200.", example: DEFAULT_PAGE_LIMIT }),
    cursor: z
      .string()
      .max(MAX_CURSOR_CHARS)
      // Aborting: a cursor of other characters is not decoded, and is named once.
      .regex(CURSOR_PATTERN, { message: "Not a cursor returned by this list.", abort: true })
      .refine(isCursor, "Not a cursor returned by this list.")
      .optional()
      .openapi({ param: { name: "cursor", in: "query" }, description: "The `next_cursor` of the previous page." }),
  });
}

/** `{ data, next_cursor }` of `item`, as a named component. */
export function pageSchema<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      next_cursor: z.string().nullable().openapi({ description: "Pass as `cursor` for the next page; null on the last page." }),
    })
    .openapi(name);
}

export const TenantIdSchema = z
  .string()
  .regex(TENANT_ID_PATTERN, "Not a valid tenant id.")
  // The pattern bounds the length; stated for clients, not checked twice.
  .openapi({
    maxLength: MAX_TENANT_ID_CHARS,
    description: "1-64 characters: a letter or digit, then letters, digits, `_`, `.`, `-`.",
    example: "acme",
  });

export const TenantIdParamsSchema = z.object({
  tenant_id: TenantIdSchema.openapi({ param: { name: "tenant_id", in: "path" } }),
});

export const TimestampSchema = z.string().openapi({ format: "date-time", example: "2026-01-01T12:00:00.000Z" });

export const LimitsSchema = limitsSchema.openapi("Limits", { description: "A tenant's effective limits." });
export const LimitOverridesSchema = partialLimitsSchema
  .strict()
  .openapi("LimitOverrides", { description: "Limits that replace the platform defaults for one tenant; absent names keep the default." });

type StatusList = [SessionStatus, ...SessionStatus[]];
const OPEN_STATUSES = SESSION_STATUSES.filter((status) => !FINAL_STATUSES.includes(status)) as StatusList;

export const FinalStatusSchema = z.enum(FINAL_STATUSES as StatusList).openapi("FinalStatus", {
  description: "A status a session's run ends in: wait for one of these.",
});
export const OpenStatusSchema = z.enum(OPEN_STATUSES).openapi("OpenStatus", {
  description:
    "A status a session is in before its run ends, or before it ever ran (`idle`). `waiting_subagents`: the child sessions its `agent` tool calls started are running; like the other waiting statuses it holds no run slot. `waiting_budget`: the run reached a budget (the session's, its API key's, its creator's or the tenant's daily one) and goes on, holding no run slot meanwhile, when the budget is raised or a daily one renews at the next UTC midnight.",
});
/** Two named parts, so that clients can tell the statuses to wait for from the ones to wait through. */
export const SessionStatusSchema = z.union([OpenStatusSchema, FinalStatusSchema]).openapi("SessionStatus");
export const StopReasonSchema = z.enum(STOP_REASONS).openapi("StopReason");

const CacheTokenFields = {
  cache_read_tokens: z.number().int().openapi({ description: "Input tokens read from the provider's prompt cache." }),
  cache_write_tokens: z.number().int().openapi({ description: "Input tokens written to the provider's prompt cache." }),
};

export const UsageSchema = z
  .object({
    steps: z.number().int().openapi({ description: "Model steps; summary calls are not steps, their tokens are counted." }),
    input_tokens: z.number().int().openapi({ description: "Input tokens neither read from nor written to the prompt cache." }),
    output_tokens: z.number().int(),
    ...CacheTokenFields,
    reasoning_tokens: z.number().int().optional().openapi({
      description: "Of `output_tokens`, those the model spent reasoning, where the provider reports them apart; absent until one did.",
    }),
    web_search_requests: z.number().int().optional().openapi({
      description: "Searches the provider's `web_search` tool made (billed per search, apart from tokens); absent until one was reported.",
    }),
    web_fetch_requests: z.number().int().optional().openapi({
      description: "Pages the provider's `web_fetch` tool fetched; absent until one was reported.",
    }),
  })
  .openapi("Usage", { description: "Every token limit counts all four token figures (`reasoning_tokens` are part of `output_tokens`)." });

export const AgentPinSchema = z
  .object({
    id: z.string().openapi({ example: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
    version: z.number().int().min(1),
    alias: z.string().optional().openapi({ description: "Present when the session came from an alias that carried a canary." }),
    canary: z
      .boolean()
      .optional()
      .openapi({ description: "With `alias`: true when the session took the canary's arm (and runs the canary's version)." }),
  })
  .openapi("AgentPin", {
    description: "The agent and the version a session was created from; null for a session not created from an agent.",
  });

export const SessionTitleSchema = z
  .string()
  .nullable()
  .openapi({
    description: `The session's first input as one line of text, cut to ${MAX_TITLE_CHARS} characters; null before any input (or for an input of images only).`,
    example: "Where is order ord_123456, and can you move its delivery to Friday?",
  });

export const SessionSummarySchema = z
  .object({
    id: z.string().openapi({ example: "ses_01hx3v9k2m" }),
    created_by: z.string(),
    title: SessionTitleSchema,
    agent: AgentPinSchema.nullable(),
    parent_session_id: z
      .string()
      .nullable()
      .openapi({ description: "For a child session: the session whose `agent` tool call started it; null otherwise." }),
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
    usage: UsageSchema,
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("SessionSummary");

export const UsageDaySchema = z
  .object({
    day: z.string().openapi({ example: "2026-01-01", description: "UTC day." }),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    ...CacheTokenFields,
    steps: z.number().int(),
    sessions_created: z.number().int(),
  })
  .openapi("UsageDay");

export const StatusCountsSchema = z.record(z.enum(SESSION_STATUSES), z.number().int()).openapi("SessionCounts");

/** A JSON response of `schema`. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/**
 * A required JSON request body with its example: without `required`, a request with no body
 * would validate as `{}`. The example is typed by the schema and checked against it by the
 * OpenAPI lint, so it cannot drift from what the route accepts.
 */
export function jsonBody<T extends z.ZodType>(schema: T, example: z.input<T>, description?: string) {
  return { required: true, ...(description ? { description } : {}), content: { "application/json": { schema, example } } };
}
