/** Schemas of the session routes' request bodies: create, add a message, deny a call, a client tool's output. */
import { z } from "@hono/zod-openapi";
import { MAX_TOOLS_PER_SESSION } from "../../sessions/object/tools/registry";
import { RunInputSchema } from "./content-schemas";
import { ContextSettingsSchema, SessionLimitsSchema } from "./session-schemas";
import { MAX_WEBHOOK_URL_CHARS, OutputSchemaSchema, ToolSchema } from "./tool-schemas";

export const MAX_SYSTEM_CHARS = 100_000;
export const MAX_MODEL_ID_CHARS = 128;
export const MAX_METADATA_ENTRIES = 32;
export const MAX_METADATA_KEY_CHARS = 64;
export const MAX_METADATA_VALUE_CHARS = 512;
export const MAX_DENY_REASON_CHARS = 1_000;
const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;

const MetadataSchema = z
  .record(z.string().min(1).max(MAX_METADATA_KEY_CHARS), z.string().max(MAX_METADATA_VALUE_CHARS))
  .refine((metadata) => Object.keys(metadata).length <= MAX_METADATA_ENTRIES, `At most ${MAX_METADATA_ENTRIES} entries.`)
  .openapi({ description: "String labels for the caller's own use.", example: { ticket: "T-1234" } });

export const CreateSessionRequestSchema = z
  .object({
    input: RunInputSchema.optional().openapi({ description: "When given, the first run starts at once." }),
    system: z.string().max(MAX_SYSTEM_CHARS).nullable().optional(),
    model: z
      .string()
      .max(MAX_MODEL_ID_CHARS)
      .regex(MODEL_ID_PATTERN, "Not a model id.")
      .optional()
      .openapi({
        description:
          "The model, optionally prefixed with its provider: `anthropic:` or `openai:` (an OpenAI-compatible Chat Completions server); " +
          "unprefixed is Anthropic's. Only models the platform and the tenant allow; the platform's default model when absent.",
        example: "claude-sonnet-4-5",
      }),
    tools: z.array(ToolSchema).max(MAX_TOOLS_PER_SESSION).optional(),
    limits: SessionLimitsSchema.optional(),
    context: ContextSettingsSchema.optional(),
    output_schema: z
      .union([OutputSchemaSchema, z.null()])
      .optional()
      .openapi({ description: "The schema of the answer of every run of the session whose message names none (the first run's too)." }),
    metadata: MetadataSchema.nullable().optional(),
    notify_url: z
      .string()
      .max(MAX_WEBHOOK_URL_CHARS)
      .nullable()
      .optional()
      .openapi({
        description:
          "An https URL that gets every status notification of this session (all five types), signed like webhook tools, besides the " +
          "tenant's endpoints. Checked like a webhook tool's URL, and held to the tenant's `webhook_origins`.",
        example: "https://shop.example.com/agent-events",
      }),
  })
  .strict()
  .openapi("CreateSessionRequest");

export type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;

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
      input_schema: { type: "object", properties: { order_id: { type: "string", pattern: "^ord_[0-9]{6}$" } }, required: ["order_id"] },
      url: "https://shop.example.com/tools/lookup-order",
    },
    {
      type: "client",
      name: "confirm_with_customer",
      description: "Asks the customer to confirm a change.",
      input_schema: { type: "object", properties: { question: { type: "string" } }, required: ["question"] },
      requires_approval: true,
    },
  ],
  limits: { max_steps_per_run: 10 },
  metadata: { ticket: "T-1234" },
};

export const IF_RUNNING = ["reject", "enqueue", "interrupt"] as const;

export const AddMessageRequestSchema = z
  .object({
    input: RunInputSchema,
    if_running: z.enum(IF_RUNNING).default("reject").openapi({
      description:
        "What to do while a run is going. `reject`: 409. `enqueue`: the message waits and starts the next run as soon as the current one ends " +
        "(in order; a cancel drops the queue). `interrupt`: the current run is stopped as a cancel would stop it and a new run starts with the message.",
    }),
    output_schema: z
      .union([OutputSchemaSchema, z.null()])
      .optional()
      .openapi({ description: "The schema of this run's answer; null asks for a free answer; absent takes the session's `output_schema`." }),
  })
  .strict()
  .openapi("AddMessageRequest");

export type AddMessageRequest = z.infer<typeof AddMessageRequestSchema>;

export const DenyToolCallRequestSchema = z
  .object({ reason: z.string().max(MAX_DENY_REASON_CHARS).optional().openapi({ description: "Told to the model with the refusal." }) })
  .strict()
  .openapi("DenyToolCallRequest");

export const ToolOutputRequestSchema = z
  .object({
    output: z.string().openapi({ description: "The tool's result; cut to the tenant's `max_tool_output_chars`." }),
    is_error: z.boolean().optional().openapi({ description: "The tool failed; the output says why." }),
  })
  .strict()
  .openapi("ToolOutputRequest");
