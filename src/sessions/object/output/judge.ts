/**
 * Judging a run's final answer against its `output_schema`, with the platform's one validator.
 * The answer is the output tool's input (Anthropic) or the answer's text as JSON (Chat
 * Completions); it is stored as text either way, so the history never holds a tool call that
 * has no result. An invalid answer is told back to the model as a message of its own. Pure.
 */
import { validateJson } from "../../../shared/json-schema/validator";
import type { ModelStopReason } from "../model/provider";
import { type ContentBlock, isReasoningBlock, type OutputSchema, type TextBlock } from "../../../session-config/types";

export type Verdict =
  | { kind: "valid"; output: unknown; content: ContentBlock[] }
  /** `error` says what was wrong, for the model and, if the run fails, for the caller. */
  | { kind: "invalid"; error: string; content: ContentBlock[] };

/** A validation error longer than this is cut: the first lines say what matters. */
export const MAX_OUTPUT_ERROR_CHARS = 2_000;

/** The marker that opens the platform's message about an invalid answer. */
export const OUTPUT_CHECK_HEADING = "[Output check]";

/**
 * The verdict on an answer without session tool calls. `content` is what the model wrote; the
 * verdict's `content` is what is saved: its text, and the output tool's input as JSON text.
 */
export function judgeAnswer(
  content: readonly ContentBlock[],
  stopReason: ModelStopReason,
  schema: OutputSchema,
  toolName: string,
): Verdict {
  const texts = content.filter((block): block is TextBlock => block.type === "text" && block.text !== "");
  const call = content.find((block) => block.type === "tool_use" && block.name === toolName);
  // The reasoning before the answer is kept as it came, ahead of it.
  const reasoning = content.filter(isReasoningBlock);
  const saved: ContentBlock[] = [
    ...reasoning,
    ...texts,
    ...(call?.type === "tool_use" ? [{ type: "text" as const, text: JSON.stringify(call.input) }] : []),
  ];
  const cut = stopReason === "max_tokens" ? "the answer was cut off at its token cap; " : "";
  let candidate: unknown;
  if (call?.type === "tool_use") {
    // Arguments that were not JSON reach here as the model's text (see openai-wire.ts).
    candidate = call.input;
  } else {
    const text = texts.map((block) => block.text).join("");
    if (text.trim() === "") return invalid(`${cut}the answer was empty`, saved);
    const parsed = parseJsonText(text);
    if (!parsed.ok) return invalid(`${cut}the answer is not JSON (${parsed.problem})`, saved);
    candidate = parsed.value;
  }
  return validated(candidate, schema, saved, cut);
}

/** The verdict on a structured answer changed after its judgement (redacted): the value checked against the schema again. */
export function rejudge(output: unknown, schema: OutputSchema, content: ContentBlock[]): Verdict {
  return validated(output, schema, content, "once redacted, ");
}

function validated(candidate: unknown, schema: OutputSchema, saved: ContentBlock[], cut: string): Verdict {
  const result = validateJson(schema, candidate);
  if (result.valid) return { kind: "valid", output: candidate, content: saved };
  const why =
    result.unusable !== null
      ? `output_schema cannot be used: ${result.unusable}`
      : `the answer does not match output_schema: ${result.errors.join("; ")}`;
  return invalid(`${cut}${why}`, saved);
}

/** The message that tells the model what was wrong and asks again. */
export function correctionText(error: string): string {
  return `${OUTPUT_CHECK_HEADING} Your answer was not accepted: ${error}. Give the whole answer again, corrected, as JSON valid for the required schema.`;
}

function invalid(error: string, content: ContentBlock[]): Verdict {
  return { kind: "invalid", error: error.length > MAX_OUTPUT_ERROR_CHARS ? `${error.slice(0, MAX_OUTPUT_ERROR_CHARS)}…` : error, content };
}

/** JSON text, also inside one Markdown code fence (servers without schema support often add one). */
function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/.exec(text);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : text) };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message.slice(0, 200) : "unparsable" };
  }
}
