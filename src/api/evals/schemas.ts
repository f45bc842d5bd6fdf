/** Schemas of the eval routes: the create body, the Eval with its items, the comparison, and the parameters. */
import { z } from "@hono/zod-openapi";
import { scorerListSchema, scorerSchema } from "../../evals/scorers";
import { DATASET_ID_PATTERN } from "../datasets/schemas";
import { AGENT_REF_PATTERN, MAX_AGENT_REF_CHARS } from "../../session-config/agent-ref";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { pageQuerySchema, pageSchema, TimestampSchema } from "../schemas";

export const EVAL_ID_PATTERN = /^evl_[A-Za-z0-9_-]{20,60}$/;

export const CreateEvalRequestSchema = z
  .object({
    agent: z
      .string()
      .max(MAX_AGENT_REF_CHARS)
      .regex(AGENT_REF_PATTERN, "Must be an agent id, optionally followed by @<version> or @<alias>.")
      .openapi({
        description: "`agt_…@<version>` or `agt_…@<alias>` (or `agt_…`: its latest version), resolved once, now.",
        example: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd@3",
      }),
    dataset_id: z.string().min(1).max(64).openapi({ pattern: DATASET_ID_PATTERN.source, example: "dst_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
    scorers: scorerListSchema,
    concurrency: z
      .number()
      .int()
      .min(1)
      .max(1_000)
      .optional()
      .openapi({ description: "Sessions at once; at most the tenant's `max_concurrent_runs` (the default, up to 5)." }),
  })
  .strict()
  .openapi("CreateEvalRequest");

const ItemScoreSchema = z.object({ score: z.number().nullable(), reason: z.string() }).openapi("EvalItemScore");

export const EvalItemSchema = z
  .object({
    index: z.number().int(),
    session_id: z.string().nullable().openapi({ description: "The item's session: read it, its events and its tool calls as any other." }),
    status: z.enum(["pending", "running", "judging", "done", "failed", "cancelled"]),
    session_status: z.string().nullable(),
    scores: z.record(z.string(), ItemScoreSchema),
    cost_usd: z.number().nullable(),
    judge_cost_usd: z.number().nullable(),
    steps: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .openapi("EvalItem");

const summaryShape = {
  id: z.string().openapi({ example: "evl_3kTq9vXbW2mYp7LsQa1Zc0Rd" }),
  agent: z.object({ agent_id: z.string(), version: z.number().int(), ref: z.string() }),
  dataset_id: z.string(),
  dataset_version: z.number().int(),
  scorers: z.array(scorerSchema),
  scorer_keys: z.array(z.string()),
  concurrency: z.number().int(),
  status: z.enum(["running", "completed", "cancelled", "failed"]),
  progress: z.object({ total: z.number().int(), pending: z.number().int(), running: z.number().int(), finished: z.number().int() }),
  scores: z.record(z.string(), z.number().nullable()).openapi({ description: "Each scorer's mean over the items it scored." }),
  cost_usd: z.number(),
  judge_cost_usd: z.number(),
  duration_ms: z.number().int().nullable(),
  error: z.string().nullable(),
  created_by: z.string(),
  created_at: TimestampSchema,
  finished_at: TimestampSchema.nullable(),
};

export const EvalSummarySchema = z.object(summaryShape).openapi("EvalSummary");
export const EvalSchema = z.object({ ...summaryShape, items: z.array(EvalItemSchema) }).openapi("Eval");
export const EvalPageSchema = pageSchema(EvalSummarySchema, "EvalPage");

const SideSchema = z.object({ session_id: z.string().nullable(), status: z.string(), scores: z.record(z.string(), z.number().nullable()) });

export const ComparisonSchema = z
  .object({
    a: EvalSummarySchema,
    b: EvalSummarySchema,
    scorers: z.array(z.string()),
    score_deltas: z.record(z.string(), z.number().nullable()),
    items: z.array(
      z.object({
        index: z.number().int(),
        a: SideSchema,
        b: SideSchema,
        deltas: z.record(z.string(), z.number()),
        regressed: z.boolean(),
        improved: z.boolean(),
      }),
    ),
    regressions: z.array(z.number().int()).openapi({ description: "Indexes of the items some scorer scored lower in `b` than in `a`." }),
    improvements: z.array(z.number().int()),
  })
  .openapi("EvalComparison");

export const EvalListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("evals", cursor) !== null);

export const EvalIdParamsSchema = z.object({
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    maxLength: 64,
    pattern: EVAL_ID_PATTERN.source,
    example: "evl_3kTq9vXbW2mYp7LsQa1Zc0Rd",
  }),
});

export const CompareQuerySchema = z.object({
  a: z
    .string()
    .max(64)
    .openapi({ param: { name: "a", in: "query" }, pattern: EVAL_ID_PATTERN.source, description: "The baseline eval." }),
  b: z
    .string()
    .max(64)
    .openapi({ param: { name: "b", in: "query" }, pattern: EVAL_ID_PATTERN.source, description: "The eval compared with it." }),
});

export const CREATE_EVAL_EXAMPLE = {
  agent: "agt_3kTq9vXbW2mYp7LsQa1Zc0Rd@3",
  dataset_id: "dst_3kTq9vXbW2mYp7LsQa1Zc0Rd",
  scorers: [{ type: "contains" as const }, { type: "max_steps" as const, max: 4 }],
  concurrency: 4,
};
