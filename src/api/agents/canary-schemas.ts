/** Schemas of an alias's canary: the request's spec and rollback rule, and the canary as answers show it with its live counts. */
import { z } from "@hono/zod-openapi";
import { MAX_CANARY_MIN_RUNS, MAX_CANARY_PERCENT, MAX_CANARY_SCORERS, MIN_CANARY_PERCENT } from "../../agents/canary";
import { ONLINE_SCORER_TYPES } from "../../agents/canary-scoring";
import { MAX_VERSION } from "../../agents/refs";
import { scorerSchema } from "../../evals/scorers";
import { TimestampSchema } from "../schemas";

const Share = z.number().min(0).max(1);

export const RollbackRuleSchema = z
  .object({
    scorers: z
      .array(scorerSchema)
      .max(MAX_CANARY_SCORERS)
      .superRefine((scorers, ctx) => {
        scorers.forEach((scorer, i) => {
          if (!ONLINE_SCORER_TYPES.includes(scorer.type))
            ctx.addIssue({
              code: "custom",
              path: [i, "type"],
              message: "A canary's runs are scored online, without a judge: use a judge in an eval.",
            });
        });
      })
      .openapi({ description: "Run on every canary run's end, with no `expected` value (give `value` where a scorer compares)." }),
    min_score: Share.optional().openapi({
      description: "Rolled back when the mean score falls below it; a run with any scorer below it counts as failed.",
    }),
    max_failure_rate: Share.optional().openapi({
      description: "Rolled back when more than this share of runs failed (ended `failed`, or a scorer below `min_score`).",
    }),
    min_runs: z
      .number()
      .int()
      .min(1)
      .max(MAX_CANARY_MIN_RUNS)
      .openapi({ description: "Nothing is judged before this many canary runs ended." }),
  })
  .strict()
  .superRefine((rule, ctx) => {
    if (rule.min_score === undefined && rule.max_failure_rate === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["min_score"],
        message: "Give `min_score`, `max_failure_rate` or both: a rule with neither never acts.",
      });
  })
  .openapi("CanaryRollbackRule");

export const CanaryRequestSchema = z
  .object({
    version: z.number().int().min(1).max(MAX_VERSION).openapi({ description: "The version tried; not the alias's own.", example: 4 }),
    percent: z
      .number()
      .int()
      .min(MIN_CANARY_PERCENT)
      .max(MAX_CANARY_PERCENT)
      .openapi({ description: "The share of the alias's new sessions and chats that run the canary.", example: 10 }),
    rollback: RollbackRuleSchema.optional(),
  })
  .strict()
  .openapi("CanaryRequest");

export const CanaryStateSchema = z
  .object({
    version: z.number().int(),
    percent: z.number().int(),
    rollback: z
      .object({
        scorers: z.array(scorerSchema),
        min_score: Share.nullable(),
        max_failure_rate: Share.nullable(),
        min_runs: z.number().int(),
      })
      .nullable(),
    runs: z.number().int().openapi({ description: "Canary runs that ended since the canary was set." }),
    failures: z.number().int(),
    failure_rate: Share.nullable().openapi({ description: "`failures / runs`; null before any run." }),
    mean_score: Share.nullable().openapi({
      description: "The mean of the runs' scores (each run: its scorers' mean); null before any scored run.",
    }),
    started_at: TimestampSchema,
  })
  .openapi("CanaryState");
