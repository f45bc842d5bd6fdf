/** Schemas of the Session as the API shows it, with its context settings and limits. */
import { z } from "@hono/zod-openapi";
import { partialLimitsSchema } from "../../limits";
import { DEFAULT_LAST_MESSAGES, MAX_LAST_MESSAGES, MAX_MAX_INPUT_TOKENS, MIN_MAX_INPUT_TOKENS } from "../../sessions/object/context/settings";
import { CONTEXT_STRATEGIES } from "../../sessions/types";
import { LimitsSchema, SessionStatusSchema, StopReasonSchema, TenantIdSchema, TimestampSchema, UsageSchema } from "../schemas";
import { OutputSchemaSchema, ToolSchema } from "./tool-schemas";

export const ContextSettingsSchema = z
  .object({
    strategy: z.enum(CONTEXT_STRATEGIES).default("auto").openapi({
      description:
        "How the history is fitted to the model's input before each call. `auto`: the task and the newest messages that fit the budget; " +
        "`last_messages`: the task and a fixed count of the newest messages; `summary`: older messages are folded into a running summary " +
        "(made by the model, counted in usage) sent with the task and the newest messages.",
    }),
    max_input_tokens: z
      .number()
      .int()
      .min(MIN_MAX_INPUT_TOKENS)
      .max(MAX_MAX_INPUT_TOKENS)
      .optional()
      .openapi({ description: "The input budget of each model call; by default the model's context size less room for the answer." }),
    last_messages: z
      .number()
      .int()
      .min(1)
      .max(MAX_LAST_MESSAGES)
      .optional()
      .openapi({ description: `\`last_messages\` only: how many of the newest messages are sent (default ${DEFAULT_LAST_MESSAGES}).` }),
  })
  .strict()
  .refine((context) => context.last_messages === undefined || context.strategy === "last_messages", {
    message: "last_messages is only for the last_messages strategy.",
    path: ["last_messages"],
  })
  .openapi("ContextSettings", {
    description: "The session's context window. The session's first user message and the current run's are always sent; a tool_use is never sent without its result.",
  });

export const SessionLimitsSchema = partialLimitsSchema
  .strict()
  .openapi("SessionLimits", { description: "Limits for this session; each may only be lower than the tenant's." });

export const SessionSchema = z
  .object({
    id: z.string().openapi({ example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" }),
    tenant_id: TenantIdSchema,
    created_by: z.string().openapi({ description: "The subject that created the session." }),
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
    error: z.string().nullable().openapi({ description: "Why the session failed; null unless `failed`." }),
    model: z.string(),
    system: z.string().nullable(),
    tools: z.array(ToolSchema),
    limits: LimitsSchema,
    context: ContextSettingsSchema,
    output_schema: z
      .union([OutputSchemaSchema, z.null()])
      .openapi({ description: "The schema of the current (or last) run's answer; before any run, the session's own; null: a free answer." }),
    output: z.unknown().openapi({
      description: "The last run's answer, parsed, when the run ended `done` with an answer valid for its `output_schema`; else null.",
      example: { total: 42.5, currency: "EUR" },
    }),
    queued_messages: z.number().int().openapi({ description: "Messages posted with `if_running: enqueue` that wait to start the next runs." }),
    usage: UsageSchema,
    metadata: z.record(z.string(), z.string()).nullable(),
    notify_url: z.string().nullable().openapi({ description: "Where this session's status notifications also go; null when none." }),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Session");
