/**
 * What a scorer is, as a request body carries it: one zod schema discriminated by `type`, whose
 * checks (a regex RE2 can run, a JSON Schema the platform's validator accepts) fail as issues
 * with the path of the bad field, so a bad scorer is a 400 naming it before any session starts.
 */
import { z } from "@hono/zod-openapi";
import { compilePattern, MAX_PATTERN_CHARS } from "../../shared/json-schema/patterns";
import { checkSchema } from "../../shared/json-schema/validator";

/** Scorers of one eval or one canary: each runs on every item, a judge being a model call. */
export const MAX_SCORERS = 10;
/** A rubric is instructions for one judgement, not a document; it is sent with every item. */
export const MAX_RUBRIC_CHARS = 4_000;
/** A scorer's name is a key of the per-scorer means, shown in tables. */
export const MAX_SCORER_NAME_CHARS = 64;
/** `contains` and `exact` values are compared with answers, not corpora. */
export const MAX_SCORER_VALUE_CHARS = 10_000;

const name = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]+$/, "Letters, digits and _ . : - only.")
  .max(MAX_SCORER_NAME_CHARS)
  .optional()
  .openapi({ description: "The key of this scorer's mean in the results; default: its type (then `type_2`, `type_3`, ...)." });

const exact = z.object({
  type: z.literal("exact"),
  name,
  value: z.unknown().optional().openapi({
    description: "The expected value; default: the item's `expected`. A string is compared with the answer, anything else with the output.",
  }),
  ignore_case: z.boolean().optional(),
});

const contains = z.object({
  type: z.literal("contains"),
  name,
  value: z.string().min(1).max(MAX_SCORER_VALUE_CHARS).optional().openapi({ description: "Default: the item's `expected` (a string)." }),
  ignore_case: z.boolean().optional(),
});

const regex = z
  .object({
    type: z.literal("regex"),
    name,
    pattern: z
      .string()
      .min(1)
      .max(MAX_PATTERN_CHARS)
      .openapi({ description: "Matched against the answer by RE2 (linear time): no backreferences or lookaround." }),
  })
  .superRefine((scorer, ctx) => {
    const compiled = compilePattern(scorer.pattern);
    if (!compiled.ok) ctx.addIssue({ code: "custom", path: ["pattern"], message: compiled.problem });
  });

const jsonSchema = z
  .object({
    type: z.literal("json_schema"),
    name,
    schema: z.record(z.string(), z.unknown()).openapi({ description: "A JSON Schema (2020-12) the session's output must be valid for." }),
  })
  .superRefine((scorer, ctx) => {
    for (const problem of checkSchema(scorer.schema))
      ctx.addIssue({ code: "custom", path: ["schema", ...problem.path], message: problem.message });
  });

const toolCalled = z.object({
  type: z.literal("tool_called"),
  name,
  tool: z.string().min(1).max(128).openapi({ description: "The tool's name." }),
  input: z
    .unknown()
    .optional()
    .openapi({ description: "A subset of the call's input: every key given must be there with an equal value." }),
});

/** Far above any run's step limit (at most 1,000). */
const maxSteps = z.object({ type: z.literal("max_steps"), name, max: z.number().int().min(0).max(1_000_000) });
const maxCost = z.object({ type: z.literal("max_cost_usd"), name, max: z.number().min(0) });

const judge = z.object({
  type: z.literal("judge"),
  name,
  model: z.string().min(1).max(200).openapi({ description: "The judging model, one of the tenant's models (`provider:model`)." }),
  rubric: z.string().min(1).max(MAX_RUBRIC_CHARS),
});

export const scorerSchema = z
  .discriminatedUnion("type", [exact, contains, regex, jsonSchema, toolCalled, maxSteps, maxCost, judge])
  .openapi("Scorer");

export type Scorer = z.infer<typeof scorerSchema>;
export type ScorerType = Scorer["type"];

export const scorerListSchema = z.array(scorerSchema).min(1).max(MAX_SCORERS);

/** The key of each scorer's mean: its name, or its type numbered from the second of a kind on. */
export function scorerKeys(scorers: readonly Scorer[]): string[] {
  const taken = new Set(scorers.flatMap((s) => (s.name ? [s.name] : [])));
  return scorers.map((scorer) => {
    if (scorer.name) return scorer.name;
    let key: string = scorer.type;
    for (let n = 2; taken.has(key); n++) key = `${scorer.type}_${n}`;
    taken.add(key);
    return key;
  });
}
