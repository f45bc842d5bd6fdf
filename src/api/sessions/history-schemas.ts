/** Schemas of a session's messages and tool calls, and their pages. */
import { z } from "@hono/zod-openapi";
import { TOOL_CALL_DECISIONS, TOOL_CALL_STATUSES } from "../../sessions/types";
import { pageSchema, TimestampSchema } from "../schemas";
import { ContentBlockSchema } from "./content-schemas";

export const MessageSchema = z
  .object({
    seq: z.number().int().openapi({ description: "Position in the history, from 1." }),
    role: z.enum(["user", "assistant"]),
    content: z.array(ContentBlockSchema),
    created_at: TimestampSchema,
  })
  .openapi("Message");

export const ToolCallDecisionSchema = z.enum(TOOL_CALL_DECISIONS).openapi("ToolCallDecision", {
  description: "`approved`, `denied` (by a principal), `expired` (no decision within the tool's `approval_timeout_seconds`); null if never decided.",
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
      description: 'Who approved or denied the call: the subject of the principal, or `"system"` when its approval expired (see `decision`). Null for a call that was never decided.',
      example: "alice",
    }),
    decided_at: TimestampSchema.nullable().openapi({ description: "When the call was approved, denied or expired." }),
    decision: ToolCallDecisionSchema.nullable(),
  })
  .openapi("ToolCall");

export const MessagePageSchema = pageSchema(MessageSchema, "MessagePage");
export const ToolCallPageSchema = pageSchema(ToolCallSchema, "ToolCallPage");
