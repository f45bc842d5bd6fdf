/**
 * Scores one finished session against one scorer: pure but for the judge, which is handed in.
 * Every score is in [0, 1] with a reason; null only where no honest score exists (no expected
 * value to compare with, a judge that did not answer as asked).
 */
import { canonicalJson as canonical } from "../../shared/canonical-json";
import { compilePattern, MAX_PATTERN_SUBJECT_CHARS } from "../../shared/json-schema/patterns";
import { validateJson } from "../../shared/json-schema/validator";
import { type Judge, type JudgeUsage, judgePrompt, parseVerdict } from "./judge";
import type { Scorer } from "./schema";

/** What a scorer sees of one session: its answer and output, what it did, what it cost. */
export interface ScoreInput {
  answer: string | null;
  output: unknown;
  expected?: unknown;
  /** The item's input, shown to a judge; absent for a session not started from a dataset. */
  input?: unknown;
  toolCalls: { name: string; input: unknown }[];
  steps: number;
  costUsd: number;
  status: string;
}

export interface ScoreResult {
  score: number | null;
  reason: string;
  /** A judge's tokens, to be counted in the tenant's usage. */
  usage?: JudgeUsage;
}

export async function scoreOne(scorer: Scorer, input: ScoreInput, judge?: Judge): Promise<ScoreResult> {
  switch (scorer.type) {
    case "exact":
      return exactScore(scorer.value !== undefined ? scorer.value : input.expected, input, scorer.ignore_case === true);
    case "contains":
      return containsScore(scorer.value ?? input.expected, input, scorer.ignore_case === true);
    case "regex":
      return regexScore(scorer.pattern, input);
    case "json_schema":
      return jsonSchemaScore(scorer.schema, input);
    case "tool_called":
      return toolCalledScore(scorer.tool, scorer.input, input);
    case "max_steps":
      return pass(input.steps <= scorer.max, `${input.steps} step(s), at most ${scorer.max} allowed.`);
    case "max_cost_usd":
      return pass(input.costUsd <= scorer.max, `Cost $${input.costUsd.toFixed(6)}, at most $${scorer.max} allowed.`);
    case "judge":
      return judgeScore(scorer.model, scorer.rubric, input, judge);
  }
}

function pass(ok: boolean, reason: string): ScoreResult {
  return { score: ok ? 1 : 0, reason };
}

function noAnswer(input: ScoreInput): ScoreResult {
  return { score: 0, reason: `The session gave no answer (status ${input.status}).` };
}

function exactScore(expected: unknown, input: ScoreInput, ignoreCase: boolean): ScoreResult {
  if (expected === undefined) return { score: null, reason: "No expected value: the item has no `expected` and the scorer no `value`." };
  if (typeof expected === "string") {
    if (input.answer === null) return noAnswer(input);
    const fold = (s: string) => (ignoreCase ? s.trim().toLowerCase() : s.trim());
    return pass(
      fold(input.answer) === fold(expected),
      fold(input.answer) === fold(expected) ? "The answer equals the expected text." : "The answer differs from the expected text.",
    );
  }
  if (input.output === null || input.output === undefined) return { score: 0, reason: "The session gave no structured output to compare." };
  const same = canonical(input.output) === canonical(expected);
  return pass(same, same ? "The output equals the expected value." : "The output differs from the expected value.");
}

function containsScore(value: unknown, input: ScoreInput, ignoreCase: boolean): ScoreResult {
  if (typeof value !== "string" || value === "")
    return { score: null, reason: "No text to look for: the item's `expected` is not a string and the scorer has no `value`." };
  if (input.answer === null) return noAnswer(input);
  const found = ignoreCase ? input.answer.toLowerCase().includes(value.toLowerCase()) : input.answer.includes(value);
  return pass(found, found ? `The answer contains ${JSON.stringify(value)}.` : `The answer does not contain ${JSON.stringify(value)}.`);
}

function regexScore(pattern: string, input: ScoreInput): ScoreResult {
  const compiled = compilePattern(pattern);
  // The schema refused it already; a scorer read back from storage is checked again all the same.
  if (!compiled.ok) return { score: null, reason: `The pattern cannot be used: ${compiled.problem}` };
  if (input.answer === null) return noAnswer(input);
  if (input.answer.length > MAX_PATTERN_SUBJECT_CHARS)
    return { score: 0, reason: `The answer is longer than ${MAX_PATTERN_SUBJECT_CHARS} characters, the most matched against a pattern.` };
  const matched = compiled.pattern.test(input.answer);
  return pass(matched, matched ? "The answer matches the pattern." : "The answer does not match the pattern.");
}

function jsonSchemaScore(schema: Record<string, unknown>, input: ScoreInput): ScoreResult {
  let value = input.output;
  if (value === null || value === undefined) {
    // A session without an output schema answers in text: that text may itself be the JSON.
    if (input.answer === null) return noAnswer(input);
    try {
      value = JSON.parse(input.answer);
    } catch {
      return { score: 0, reason: "The session gave no structured output and its answer is not JSON." };
    }
  }
  const result = validateJson(schema, value);
  if (result.valid) return { score: 1, reason: "The output is valid for the schema." };
  if (result.unusable) return { score: null, reason: `The schema cannot be used: ${result.unusable}` };
  return { score: 0, reason: `The output is not valid for the schema: ${result.errors.join("; ")}` };
}

function toolCalledScore(tool: string, subset: unknown, input: ScoreInput): ScoreResult {
  const named = input.toolCalls.filter((call) => call.name === tool);
  if (named.length === 0) return { score: 0, reason: `The tool ${JSON.stringify(tool)} was not called.` };
  if (subset === undefined) return { score: 1, reason: `The tool ${JSON.stringify(tool)} was called.` };
  const matched = named.some((call) => isSubset(subset, call.input));
  return pass(
    matched,
    matched
      ? `The tool ${JSON.stringify(tool)} was called with the expected input.`
      : `The tool ${JSON.stringify(tool)} was called, never with the expected input.`,
  );
}

async function judgeScore(model: string, rubric: string, input: ScoreInput, judge: Judge | undefined): Promise<ScoreResult> {
  if (!judge) return { score: null, reason: "No judge is available here." };
  let answer: Awaited<ReturnType<Judge>>;
  try {
    answer = await judge(model, judgePrompt(rubric, input));
  } catch (err) {
    return { score: null, reason: `The judge could not be asked: ${err instanceof Error ? err.message.slice(0, 300) : "unknown error"}` };
  }
  const verdict = parseVerdict(answer.text);
  return verdict.ok
    ? { score: verdict.score, reason: verdict.reason, usage: answer.usage }
    : { score: null, reason: verdict.problem, usage: answer.usage };
}

/** `subset` is within `value`: objects key by key (extra keys allowed), arrays and scalars equal. */
export function isSubset(subset: unknown, value: unknown): boolean {
  if (subset !== null && typeof subset === "object" && !Array.isArray(subset)) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    return Object.entries(subset).every(
      ([key, sub]) => Object.hasOwn(value, key) && isSubset(sub, (value as Record<string, unknown>)[key]),
    );
  }
  return canonical(subset) === canonical(value);
}
