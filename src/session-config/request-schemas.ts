/**
 * The bodies of the session operations as any caller sends them: a create body (input, tools,
 * limits, context, output schema) and a message. The routes validate requests with them, and a
 * schedule's firing reads its stored action with the same ones. Caps on caller-given text are
 * named here with their units; the body limit bounds a request as a whole on top of them.
 */
import { z } from "@hono/zod-openapi";
import { MAX_IMAGES_PER_INPUT, MAX_INPUT_IMAGE_BYTES, MAX_MAX_IMAGE_BYTES, MAX_STORED_VALUE_BYTES, partialLimitsSchema } from "../limits";
import { base64Length } from "../shared/base64";
import { boundedRecord } from "../shared/bounded-record";
import { DEFAULT_LAST_MESSAGES, MAX_LAST_MESSAGES, MAX_MAX_INPUT_TOKENS, MIN_MAX_INPUT_TOKENS } from "./context-settings";
import { MAX_INPUT_CHARS, MAX_TOOLS_PER_SESSION } from "./bounds";
import { CONTEXT_STRATEGIES, IMAGE_MEDIA_TYPES, REASONING_EFFORTS } from "./types";
import { EFFORT_BUDGETS, MAX_THINKING_BUDGET, MIN_THINKING_BUDGET } from "./reasoning";
import { AGENT_REF_PATTERN, MAX_AGENT_REF_CHARS } from "./agent-ref";
import { MemoryGrantSchema } from "./memory-grant";
import { MAX_METADATA_ENTRIES, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from "./metadata";
import { MAX_WEBHOOK_URL_CHARS, OutputSchemaSchema, ToolSchema } from "./tool-schemas";
import { PolicySpecSchema } from "./policy-spec";

/** Blocks per input; each block is a separate part of one user message. */
export const MAX_INPUT_BLOCKS = 100;
export const MAX_IMAGE_URL_CHARS = 2_048;
export const MAX_SYSTEM_CHARS = 100_000;
export const MAX_MODEL_ID_CHARS = 128;
export { MAX_METADATA_ENTRIES, MAX_METADATA_KEY_CHARS, MAX_METADATA_VALUE_CHARS } from "./metadata";
// The tool schemas live in tool-schemas.ts; this module stays the one place the bodies are imported from.
export * from "./tool-schemas";

const MODEL_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@-]*$/;

// ---- input ---------------------------------------------------------------------------------

/**
 * A text block as the history shows it; a model's answer is not held to an input's caps, only to
 * what one saved message can hold (stated for clients, not checked).
 */
export const TextBlockSchema = z
  .object({
    type: z.literal("text"),
    text: z.string().openapi({ maxLength: MAX_STORED_VALUE_BYTES }),
    citations: z
      .array(z.object({ type: z.string() }).passthrough().openapi("Citation"))
      .optional()
      .openapi({
        // Stated for clients, not checked: a saved message's size bounds it (a citation is at least ~50 bytes).
        maxItems: Math.floor(MAX_STORED_VALUE_BYTES / 50),
        description:
          "Where the text comes from, as the provider gave it (Anthropic's `web_search_result_location` with `url` and `title`, " +
          "`char_location` of a fetched document, …): show them to the reader beside the text.",
      }),
  })
  .strict()
  .openapi("TextBlock");

/** Blank input is refused: a user message says something, or shows an image. */
const SOME_TEXT = /\S/;
const NO_TEXT = "Must contain some text or an image.";

/**
 * A text block of a user message: no one block is longer than all of a message's text may be.
 * Stated here, checked with the whole message (`inputProblem`), so a message is refused once.
 */
export const InputTextBlockSchema = z
  .object({ type: z.literal("text"), text: z.string().openapi({ maxLength: MAX_INPUT_CHARS }) })
  .strict()
  .openapi("InputTextBlock");

export const ImageMediaTypeSchema = z.enum(IMAGE_MEDIA_TYPES).openapi("ImageMediaType");

export const InputImageBlockSchema = z
  .object({
    type: z.literal("image"),
    source: z.discriminatedUnion("type", [
      z
        .object({
          type: z.literal("base64"),
          media_type: ImageMediaTypeSchema,
          // Longer decodes to more than one image, or one message's images, may ever be.
          data: z
            .string()
            .min(1)
            .max(base64Length(Math.min(MAX_MAX_IMAGE_BYTES, MAX_INPUT_IMAGE_BYTES)))
            .openapi({ format: "byte", description: "The image file, base64 (standard alphabet, padded), without a `data:` prefix." }),
        })
        .strict(),
      z
        .object({
          type: z.literal("url"),
          url: z.string().max(MAX_IMAGE_URL_CHARS).openapi({
            format: "uri",
            description: "An https URL on the public internet; the platform fetches it once.",
            example: "https://example.com/receipt.png",
          }),
        })
        .strict(),
    ]),
  })
  .strict()
  .openapi("InputImageBlock", {
    description:
      "An image: PNG, JPEG, GIF or WebP, at most the tenant's `max_image_bytes`. The platform checks it, stores it once with the session " +
      "and sends it to the model with every call whose history holds it; only models that take images accept it.",
  });

const InputBlockSchema = z.discriminatedUnion("type", [InputTextBlockSchema, InputImageBlockSchema]);

function inputProblem(input: string | z.infer<typeof InputBlockSchema>[]): string | null {
  const blocks = typeof input === "string" ? [{ type: "text" as const, text: input }] : input;
  const texts = blocks.flatMap((block) => (block.type === "text" ? [block.text] : []));
  const images = blocks.length - texts.length;
  if (images === 0 && !texts.some((text) => SOME_TEXT.test(text))) return NO_TEXT;
  if (images > MAX_IMAGES_PER_INPUT) return `Must hold at most ${MAX_IMAGES_PER_INPUT} images.`;
  const total = texts.reduce((sum, text) => sum + text.length, 0);
  return total > MAX_INPUT_CHARS ? `Must be at most ${MAX_INPUT_CHARS} characters in all.` : null;
}

export const RunInputSchema = z
  // The text's bounds are stated on the string and checked with the whole message (`inputProblem`).
  .union([
    z.string().openapi({ maxLength: MAX_INPUT_CHARS, pattern: SOME_TEXT.source }),
    z.array(InputBlockSchema).min(1).max(MAX_INPUT_BLOCKS),
  ])
  .superRefine((input, ctx) => {
    const problem = inputProblem(input);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .openapi("RunInput", {
    description:
      `A user message: text, or a list of text and image blocks; at most ${MAX_INPUT_CHARS} characters of text ` +
      `and ${MAX_IMAGES_PER_INPUT} images in all.`,
    example: "What time is it in Tokyo?",
  });

export type ApiRunInput = z.infer<typeof RunInputSchema>;

// ---- the session's settings and the bodies -------------------------------------------------

export const ContextSettingsSchema = z
  .object({
    strategy: z
      .enum(CONTEXT_STRATEGIES)
      .default("auto")
      .openapi({
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
    description:
      "The session's context window. The session's first user message and the current run's are always sent; a tool_use is never sent without its result.",
  });

export const ReasoningSettingsSchema = z
  .object({
    effort: z
      .enum(REASONING_EFFORTS)
      .optional()
      .openapi({
        description:
          "How hard the model thinks. Chat Completions: `reasoning_effort`. Anthropic: a thinking budget of " +
          `${EFFORT_BUDGETS.low}, ${EFFORT_BUDGETS.medium} or ${EFFORT_BUDGETS.high} tokens (\`medium\` when neither field is given).`,
      }),
    budget_tokens: z
      .number()
      .int()
      .min(MIN_THINKING_BUDGET)
      .max(MAX_THINKING_BUDGET)
      .optional()
      .openapi({
        description:
          "Anthropic only: the thinking budget, which the answer's cap (`max_tokens_per_call`) includes, so it must be below it; it wins over `effort`. " +
          "A call whose cap (what the session has left) is lower gets a budget one token below its cap, and none below " +
          `${MIN_THINKING_BUDGET + 1} tokens.`,
      }),
  })
  .strict()
  .openapi("ReasoningSettings", {
    description:
      "The model's reasoning before it answers: Anthropic's extended thinking, Chat Completions' `reasoning_effort`. Only for models the " +
      "platform's catalog marks as reasoning models. The reasoning comes back as `thinking` blocks of the answer, and as `delta` events " +
      'with `kind: "reasoning"` while it is written; its tokens count in `output_tokens`.',
    example: { effort: "medium" },
  });

export const MetadataSchema = boundedRecord(
  z.string().min(1).max(MAX_METADATA_KEY_CHARS),
  z.string().max(MAX_METADATA_VALUE_CHARS),
  MAX_METADATA_ENTRIES,
  `At most ${MAX_METADATA_ENTRIES} entries.`,
).openapi({ description: "String labels for the caller's own use.", example: { ticket: "T-1234" } });

export const SessionLimitsSchema = partialLimitsSchema
  .strict()
  .openapi("SessionLimits", { description: "Limits for this session; each may only be lower than the tenant's." });

/**
 * A session's configuration: the fields a create body and an agent's definition share, with the
 * same schemas, so both are validated by the same code (src/sessions/create.ts `prepareSession`).
 */
export const SESSION_CONFIG_FIELDS = {
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
  // A union rather than `.nullable()`, so the named schema itself stays an object (see output_schema).
  reasoning: z
    .union([ReasoningSettingsSchema, z.null()])
    .optional()
    .openapi({ description: "The model's reasoning before it answers; null or absent: none asked for." }),
  output_schema: z
    .union([OutputSchemaSchema, z.null()])
    .optional()
    .openapi({ description: "The schema of the answer of every run of the session whose message names none (the first run's too)." }),
  metadata: MetadataSchema.nullable().optional(),
  memory: MemoryGrantSchema.nullable().optional(),
  policy: PolicySpecSchema.nullable().optional(),
  notify_url: z
    .string()
    .max(MAX_WEBHOOK_URL_CHARS)
    .nullable()
    .optional()
    .openapi({
      format: "uri",
      description:
        "An https URL that gets every status notification of this session (all five types), signed like webhook tools, besides the " +
        "tenant's endpoints. Checked like a webhook tool's URL, and held to the tenant's `webhook_origins`.",
      example: "https://shop.example.com/agent-events",
    }),
};

/** The configuration fields a session from an agent takes from the agent alone: giving one beside `agent` is a 400. */
export const AGENT_OWNED_FIELDS = ["system", "model", "tools", "context", "reasoning", "memory", "policy"] as const;

export const CreateSessionRequestSchema = z
  .object({
    input: RunInputSchema.optional().openapi({ description: "When given, the first run starts at once." }),
    agent: z
      .string()
      .max(MAX_AGENT_REF_CHARS)
      .regex(AGENT_REF_PATTERN, "Must be an agent id, optionally followed by @<version> or @<alias>.")
      .optional()
      .openapi({
        description:
          "Run an agent: `agt_…` (its latest version), `agt_…@<version>` or `agt_…@<alias>`, resolved once, now. Beside it only `input`, " +
          "`limits` (lowering the agent's), `metadata` (merged over the agent's), `notify_url` and `output_schema` (replacing the agent's) may be given.",
        example: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd@production",
      }),
    ...SESSION_CONFIG_FIELDS,
  })
  .strict()
  .openapi("CreateSessionRequest");

export const IF_RUNNING = ["reject", "enqueue", "interrupt"] as const;

export const AddMessageRequestSchema = z
  .object({
    input: RunInputSchema,
    if_running: z
      .enum(IF_RUNNING)
      .default("reject")
      .openapi({
        description:
          "What to do while a run is going. `reject`: 409. `enqueue`: the message waits and starts the next run as soon as the current one ends " +
          "(in order; a cancel drops the queue). `interrupt`: the current run is stopped as a cancel would stop it and a new run starts with the message.",
      }),
    output_schema: z.union([OutputSchemaSchema, z.null()]).optional().openapi({
      description: "The schema of this run's answer; null asks for a free answer; absent takes the session's `output_schema`.",
    }),
  })
  .strict()
  .openapi("AddMessageRequest");

export const ForkSessionRequestSchema = z
  .object({
    at_seq: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({
        description:
          "The last message copied: one that ends a whole exchange (not an answer that asks for tool calls). 0 copies none; absent copies " +
          "every message saved, up to the last whole exchange.",
        example: 4,
      }),
    input: RunInputSchema.optional().openapi({ description: "When given, the fork's first run starts at once with this message." }),
    metadata: MetadataSchema.nullable().optional().openapi({ description: "The fork's metadata; the source's when absent." }),
  })
  .strict()
  .openapi("ForkSessionRequest");

export type CreateSessionRequest = z.infer<typeof CreateSessionRequestSchema>;
export type ForkSessionRequest = z.infer<typeof ForkSessionRequestSchema>;
export type AddMessageRequest = z.infer<typeof AddMessageRequestSchema>;
