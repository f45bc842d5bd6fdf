/**
 * Schemas of the session routes: the Session and what it holds (messages, tool calls), the
 * tool-call bodies, and the path and query parameters; the create and message bodies come from
 * src/session-config/request-schemas.ts. Caps on caller-given text are named with their units.
 */
import { BUDGET_WAITS } from "../../usage/budgets";
import { z } from "@hono/zod-openapi";
import { AGENT_ID_PATTERN } from "../../agents/refs";
import { MAX_SUBJECT_LENGTH } from "../../auth/platform-keys";
import { MAX_METADATA_FILTERS, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from "../../session-config/metadata";
import { MAX_SESSION_ID_CHARS, MAX_TOOL_CALL_ID_CHARS, SESSION_ID_PATTERN, TOOL_CALL_ID_PATTERN } from "../../session-config/ids";
import {
  ContextSettingsSchema,
  CreateSessionRequestSchema,
  ImageMediaTypeSchema,
  OutputSchemaSchema,
  ReasoningSettingsSchema,
  TextBlockSchema,
  ToolSchema,
} from "../../session-config/request-schemas";
import { PROVIDER_BLOCK_TYPES, TOOL_CALL_DECISIONS, TOOL_CALL_STATUSES } from "../../session-config/types";
import { MAX_DENY_REASON_CHARS, MAX_MAX_REQUEST_BYTES } from "../../limits";
import { decodeIntPairCursor, decodeTimeIdCursor, SEQUENCE_PATTERN } from "../../shared/cursor";
import { SessionSummaryPageSchema } from "../admin/schemas";
import {
  AgentPinSchema,
  LimitsSchema,
  pageQuerySchema,
  queryIntegerSchema,
  pageSchema,
  SessionStatusSchema,
  SessionTitleSchema,
  StopReasonSchema,
  TenantIdSchema,
  TimestampSchema,
  UsageSchema,
} from "../schemas";

export { SessionSummaryPageSchema };
export { MAX_DENY_REASON_CHARS };
// The request bodies are the operations' own (src/sessions), read by a schedule's firing too.
export * from "../../session-config/request-schemas";

// ---- content --------------------------------------------------------------------------------

export const ToolUseBlockSchema = z
  .object({ type: z.literal("tool_use"), id: z.string(), name: z.string(), input: z.unknown() })
  .openapi("ToolUseBlock");

export const ToolResultBlockSchema = z
  .object({ type: z.literal("tool_result"), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() })
  .openapi("ToolResultBlock");

export const StoredImageBlockSchema = z
  .object({
    type: z.literal("image"),
    source: z.object({
      type: z.literal("stored"),
      image_id: z
        .string()
        .openapi({ description: "The session keeps each image once, under this id.", example: "img_3f5c0e9a1b2d4c6e8f7a9b0c1d2e3f4a" }),
      media_type: ImageMediaTypeSchema,
      size_bytes: z.number().int(),
      width: z.number().int(),
      height: z.number().int(),
      url: z.string().optional().openapi({ description: "Where the platform fetched the image from, when it was given as a URL." }),
    }),
  })
  .openapi("StoredImageBlock", { description: "An image of a user message, as the history shows it: what it is, not its bytes." });

export const ThinkingBlockSchema = z
  .object({
    type: z.literal("thinking"),
    thinking: z.string(),
    signature: z
      .string()
      .optional()
      .openapi({ description: "Anthropic's signature of the block; absent for a Chat Completions server's reasoning." }),
    reasoning_details: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .openapi({
        description:
          "OpenRouter's `reasoning_details` (text, summary and encrypted items) as received, the streamed pieces of each item joined; " +
          "sent back with the tool calls they came with.",
      }),
  })
  .openapi("ThinkingBlock", {
    description:
      "The model's reasoning before its answer, as the provider gave it (Anthropic `thinking`, Chat Completions `reasoning_content` or " +
      "`reasoning`): never part of the answer's text, and sent back to the provider where it requires it.",
  });

export const RedactedThinkingBlockSchema = z
  .object({
    type: z.literal("redacted_thinking"),
    data: z.string().openapi({ description: "Encrypted by the provider; kept and sent back as given." }),
  })
  .openapi("RedactedThinkingBlock", { description: "Reasoning the provider (Anthropic) encrypted." });

export const ProviderBlockSchema = z
  .object({ type: z.enum(PROVIDER_BLOCK_TYPES) })
  .passthrough()
  .openapi("ProviderBlock", {
    description:
      "A block of a provider's own tool (Anthropic's server tools: `server_tool_use`, `web_search_tool_result`, `web_fetch_tool_result`, " +
      "`code_execution_tool_result`, …), which the provider ran inside its answer: kept exactly as given and sent back unchanged.",
  });

export const ContentBlockSchema = z
  .discriminatedUnion("type", [
    ProviderBlockSchema,
    TextBlockSchema,
    ToolUseBlockSchema,
    ToolResultBlockSchema,
    StoredImageBlockSchema,
    ThinkingBlockSchema,
    RedactedThinkingBlockSchema,
  ])
  .openapi("ContentBlock");

// ---- the session ---------------------------------------------------------------------------

const BudgetWaitSchema = z
  .object({
    budget: z.enum(BUDGET_WAITS).openapi({
      description:
        "`session_tokens`, `session_cost`: the session's own `max_tokens_per_session`, `max_cost_usd_per_session` (a tenant admin raises them with `PATCH /v1/sessions/{id}`); " +
        "`tenant_tokens`, `tenant_cost`, `subject_tokens`, `key_tokens`: a daily budget of the tenant, its creator or its API key.",
    }),
    resumes_at: TimestampSchema.nullable().openapi({
      description: "For a daily budget, when it renews and the run goes on by itself (the next UTC midnight); null for the session's own.",
    }),
  })
  .openapi("BudgetWait", { description: "What a session in `waiting_budget` waits on." });

export const SessionSchema = z
  .object({
    id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    tenant_id: TenantIdSchema,
    created_by: z.string().openapi({ description: "The subject that created the session." }),
    title: SessionTitleSchema,
    agent: AgentPinSchema.nullable(),
    forked_from: z
      .object({ session_id: z.string(), seq: z.number().int().min(0) })
      .nullable()
      .openapi({ description: "For a fork: the session it was copied from and the last message copied; null otherwise." }),
    parent: z.object({ session_id: z.string(), tool_call_id: z.string() }).nullable().openapi("SessionParent", {
      description: "For a child session: the session and the `agent` tool call that started it; null for a session a caller created.",
    }),
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
    error: z.string().nullable().openapi({
      description: "Why the session failed; for a run ended `done` by a sub-agent tree's limit (`budget_limit`), which limit; else null.",
    }),
    model: z.string(),
    system: z.string().nullable(),
    tools: z.array(ToolSchema),
    limits: LimitsSchema,
    context: ContextSettingsSchema,
    reasoning: z
      .union([ReasoningSettingsSchema, z.null()])
      .openapi({ description: "The model's reasoning settings; null: none asked for." }),
    output_schema: z.union([OutputSchemaSchema, z.null()]).openapi({
      description: "The schema of the current (or last) run's answer; before any run, the session's own; null: a free answer.",
    }),
    output: z.unknown().openapi({
      description: "The last run's answer, parsed, when the run ended `done` with an answer valid for its `output_schema`; else null.",
      example: { total: 42.5, currency: "EUR" },
    }),
    answer: z.string().nullable().openapi({
      description:
        "The last run's final answer as text (its last assistant message; with an `output_schema`, the answer's JSON) when the run ended `done`; else null.",
      example: "Order ord_123456 ships on Friday.",
    }),
    cost_usd: z.number().min(0).nullable().openapi({
      description:
        "What this session's tokens and its sub-agents' (`usage` with `usage.subagents`) cost in USD, at this session's model's price (`MODEL_PRICES` over the built-in table); null when that model has no price. Children's usage is as they last reported it, at each change of their status.",
      example: 0.0123,
    }),
    queued_messages: z
      .number()
      .int()
      .openapi({ description: "Messages posted with `if_running: enqueue` that wait to start the next runs." }),
    // A union rather than `.nullable()`, so the named schema itself stays an object.
    budget_wait: z.union([BudgetWaitSchema, z.null()]).openapi({
      description: "While the session is `waiting_budget`: what it waits on; null otherwise.",
    }),
    tree: z
      .object({
        sessions: z.number().int().min(1).openapi({ description: "Sessions of the tree, this root included (`max_sessions_per_tree`)." }),
        model_calls: z
          .number()
          .int()
          .min(0)
          .openapi({ description: "Model calls of every session of the tree together (`max_model_calls_per_tree`)." }),
      })
      .nullable()
      .openapi("SessionTree", {
        description:
          "For a session a caller created: its sub-agent tree's count, itself and every session its `agent` tools started, and theirs. Null for a child session: its root keeps the count.",
      }),
    usage: UsageSchema.extend({
      subagents: UsageSchema.openapi({
        description: "The usage of every child session its `agent` tools started, and of theirs, summed (as last reported by each child).",
      }),
    }).openapi("SessionUsage"),
    metadata: z.record(z.string(), z.string()).nullable(),
    memory: z
      .object({ namespaces: z.array(z.array(z.string())), write: z.array(z.array(z.string())) })
      .nullable()
      .openapi({
        description:
          "The memory namespaces the session's model may read and write, with `{metadata.<field>}` filled in; null when it has no memory tools.",
        example: { namespaces: [["users", "u_123"]], write: [["users", "u_123"]] },
      }),
    notify_url: z.string().nullable().openapi({ description: "Where this session's status notifications also go; null when none." }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Session");

/** The create body's example in the document: a run with a tool of each kind. */
export const CREATE_SESSION_EXAMPLE: z.input<typeof CreateSessionRequestSchema> = {
  input: "Where is order ord_123456, and can you move its delivery to Friday?",
  system: "You are the support assistant of an online shop.",
  tools: [
    { type: "builtin", name: "get_time" },
    {
      type: "webhook",
      name: "lookup_order",
      description: "Finds an order by its id.",
      input_schema: {
        type: "object",
        properties: { order_id: { type: "string", maxLength: 10, pattern: "^ord_[0-9]{6}$" } },
        required: ["order_id"],
      },
      url: "https://shop.example.com/tools/lookup-order",
    },
    {
      type: "client",
      name: "confirm_with_customer",
      description: "Asks the customer to confirm a change.",
      input_schema: {
        type: "object",
        properties: { question: { type: "string", maxLength: 500, pattern: "\\?$" } },
        required: ["question"],
      },
      requires_approval: true,
    },
  ],
  limits: { max_steps_per_run: 10 },
  metadata: { ticket: "T-1234" },
};

export const DenyToolCallRequestSchema = z
  .object({ reason: z.string().max(MAX_DENY_REASON_CHARS).optional().openapi({ description: "Told to the model with the refusal." }) })
  .strict()
  .openapi("DenyToolCallRequest");

export const ToolOutputRequestSchema = z
  .object({
    // No body is longer than the highest `max_request_bytes`; what passes is cut as the tenant's limit says.
    output: z
      .string()
      .max(MAX_MAX_REQUEST_BYTES)
      .openapi({ description: "The tool's result; cut to the tenant's `max_tool_output_chars`." }),
    is_error: z.boolean().optional().openapi({ description: "The tool failed; the output says why." }),
  })
  .strict()
  .openapi("ToolOutputRequest");

// ---- messages and tool calls ---------------------------------------------------------------

export const MessageSchema = z
  .object({
    seq: z.number().int().openapi({ description: "Position in the history, from 1." }),
    role: z.enum(["user", "assistant"]),
    content: z.array(ContentBlockSchema),
    created_at: TimestampSchema,
  })
  .openapi("Message");

export const ToolCallDecisionSchema = z.enum(TOOL_CALL_DECISIONS).openapi("ToolCallDecision", {
  description:
    "`approved`, `denied` (by a principal), `expired` (no decision within the tool's `approval_timeout_seconds`); null if never decided.",
});

export const ToolCallPolicySchema = z
  .object({
    decision: z.enum(["allow", "deny", "require_approval"]),
    policy_ids: z.array(z.string()).openapi({ description: "The statements that decided: `tenant.<id>` or `agent.<id>`." }),
  })
  .openapi("ToolCallPolicy", {
    description:
      "The tool policy's decision, made once before the call ran (docs/policy.md): `deny` ended it with a `policy_denied` error, " +
      "`require_approval` held it for approval. Null when no policy judged it.",
  });

export const ToolCallSchema = z
  .object({
    id: z.string().openapi({ description: "The model's tool_use id.", example: "toolu_01A09q90qw90lq917835lq9" }),
    step: z.number().int(),
    name: z.string(),
    input: z.unknown(),
    status: z.enum(TOOL_CALL_STATUSES).openapi("ToolCallStatus"),
    output: z.string().nullable(),
    is_error: z.boolean(),
    created_at: TimestampSchema,
    started_at: TimestampSchema.nullable(),
    finished_at: TimestampSchema.nullable(),
    decided_by: z.string().nullable().openapi({
      description:
        'Who approved or denied the call: the subject of the principal, or `"system"` when its approval expired (see `decision`). Null for a call that was never decided.',
      example: "alice",
    }),
    decided_at: TimestampSchema.nullable().openapi({ description: "When the call was approved, denied or expired." }),
    decision: ToolCallDecisionSchema.nullable(),
    // A union rather than `.nullable()`, so the named schema itself stays an object for the SDK.
    policy: z.union([ToolCallPolicySchema, z.null()]),
  })
  .openapi("ToolCall");

export const MessagePageSchema = pageSchema(MessageSchema, "MessagePage");
export const ToolCallPageSchema = pageSchema(ToolCallSchema, "ToolCallPage");

// ---- parameters ----------------------------------------------------------------------------

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
const SessionIdParam = z.string().openapi({
  param: { name: "id", in: "path" },
  pattern: SESSION_ID_PATTERN.source,
  maxLength: MAX_SESSION_ID_CHARS,
  example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F",
});

export const SessionIdParamsSchema = z.object({ id: SessionIdParam });

export const ToolCallParamsSchema = z.object({
  id: SessionIdParam,
  call_id: z.string().openapi({
    param: { name: "call_id", in: "path" },
    pattern: TOOL_CALL_ID_PATTERN.source,
    maxLength: MAX_TOOL_CALL_ID_CHARS,
    example: "toolu_01A09q90qw90lq917835lq9",
  }),
});

export const SessionListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("sessions", cursor) !== null).extend({
  status: SessionStatusSchema.optional().openapi({ param: { name: "status", in: "query" } }),
  created_by: z
    .string()
    .min(1)
    .max(MAX_SUBJECT_LENGTH)
    .optional()
    .openapi({
      param: { name: "created_by", in: "query" },
      description: "Only sessions this subject created. Without tenant:admin, only your own are listed.",
    }),
  agent_id: z
    .string()
    .max(64)
    .regex(AGENT_ID_PATTERN, "Not an agent id.")
    .optional()
    .openapi({ param: { name: "agent_id", in: "query" }, description: "Only sessions created from this agent (any version)." }),
  parent_session_id: z
    .string()
    .max(MAX_SESSION_ID_CHARS)
    .regex(SESSION_ID_PATTERN, "Not a session id.")
    .optional()
    .openapi({
      param: { name: "parent_session_id", in: "query" },
      description: "Only the child sessions this session's `agent` tool calls started.",
    }),
  // Documented here; read from the query's own names by metadata-filter.ts (the validator sees `metadata[ticket]` as one name).
  metadata: z
    .record(z.string().min(1).max(MAX_METADATA_KEY_CHARS), z.string().max(MAX_METADATA_VALUE_CHARS))
    .optional()
    .openapi({
      param: { name: "metadata", in: "query", style: "deepObject", explode: true },
      maxProperties: MAX_METADATA_FILTERS,
      description: `Only sessions whose metadata holds each of these entries, exactly: \`metadata[ticket]=T-1234\`. At most ${MAX_METADATA_FILTERS} entries.`,
      example: { ticket: "T-1234" },
    }),
});

/** A tool-call cursor names the last call of the previous page (its message and place in it). */
export const ToolCallListQuerySchema = pageQuerySchema((cursor) => decodeIntPairCursor("tool_calls", cursor) !== null);

/** A message cursor is the `seq` of the last message of the previous page. */
export const MessageListQuerySchema = pageQuerySchema((cursor) => SEQUENCE_PATTERN.test(cursor))
  .extend({
    after: queryIntegerSchema(0, Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ param: { name: "after", in: "query" }, description: "Only messages with a greater `seq`; the same as `cursor`." }),
  })
  .refine((query) => query.after === undefined || query.cursor === undefined, {
    message: "Give either after or cursor, not both.",
    path: ["after"],
  });
