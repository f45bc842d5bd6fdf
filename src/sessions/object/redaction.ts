/**
 * The tenant's redaction applied where content enters a session's storage: a user message's text
 * (as it is stored, `storeInput`), a tool's output (as its result is saved, with the cut to
 * `max_tool_output_chars`), and a model's answer (as the assistant message is saved: its text,
 * its tool calls' arguments, its reasoning, its structured output) and summary.
 * The setting is the run's, carried in by the operation that started it (`RunOptions.redaction`).
 */
import { detectorsFor, type RedactionDetector, type RedactionSettings } from "../../shared/redaction/settings";
import { MAX_REDACTION_INPUT_CHARS, redactText } from "../../shared/redaction/redact";
import type { ContentBlock, TextBlock } from "../../session-config/content";
import { cutOutput } from "./tools/cut-output";

/** Read past the cut, so a match the cut would halve is found whole and the half never kept. */
export const REDACTION_OVERLAP_CHARS = 1024;

type Setting = RedactionSettings | null | undefined;

/** A text block of a user message as stored. */
export function redactInputText(block: TextBlock, redaction: Setting): TextBlock {
  const detectors = detectorsFor(redaction, "user_input");
  return detectors.length === 0 ? block : { ...block, text: redactText(block.text, detectors) };
}

/**
 * A tool's output as saved: cut to `maxChars`, and redacted when the setting asks. Redaction
 * reads at most `MAX_REDACTION_INPUT_CHARS`, so with it an output is cut there at the latest.
 */
export function savedToolOutput(output: string, maxChars: number, redaction: Setting): string {
  const detectors = detectorsFor(redaction, "tool_output");
  if (detectors.length === 0) return cutOutput(output, maxChars);
  const max = Math.min(maxChars, MAX_REDACTION_INPUT_CHARS - REDACTION_OVERLAP_CHARS);
  const read = output.slice(0, max + REDACTION_OVERLAP_CHARS);
  return cutOutput(redactText(read, detectors), max, read.length < output.length ? output.length : undefined);
}

/**
 * An answer's content as saved, and as the model and the tools see it from then on: the text of
 * its text blocks, the string values of its tool calls' arguments (the tool gets the marks, as the
 * model will be shown them) and the text of its reasoning. A signed reasoning block whose text
 * changes loses its signature: the provider would refuse it altered, and it is not sent back
 * (`requestedReasoning` keeps signed reasoning from being asked for while answers are redacted).
 * Encrypted reasoning (`redacted_thinking`) is opaque to the platform and kept as given.
 */
export function redactAnswer(content: ContentBlock[], redaction: Setting): ContentBlock[] {
  const detectors = detectorsFor(redaction, "model_output");
  if (detectors.length === 0) return content;
  return content.map((block): ContentBlock => {
    if (block.type === "text") return { ...block, text: redactText(block.text, detectors) };
    if (block.type === "tool_use") return { ...block, input: redactJson(block.input, detectors) };
    if (block.type !== "thinking") return block;
    const thinking = redactText(block.thinking, detectors);
    // The details' readable text may differ from the thinking text: a change there drops them all (their signatures would no longer match).
    const detailsChanged = (block.reasoning_details ?? []).some((item) =>
      (["text", "summary"] as const).some((field) => typeof item[field] === "string" && redactText(item[field], detectors) !== item[field]),
    );
    return thinking === block.thinking && !detailsChanged ? block : { type: "thinking", thinking };
  });
}

/** A model's text that is not an answer's block (a compaction summary), redacted as answers are. */
export function redactModelText(text: string, redaction: Setting): string {
  return redactText(text, detectorsFor(redaction, "model_output"));
}

/**
 * A structured answer's value with every string in it redacted (keys are the schema's, never
 * data), or the value itself when answers are not redacted.
 */
export function redactOutputValue(value: unknown, redaction: Setting): unknown {
  const detectors = detectorsFor(redaction, "model_output");
  return detectors.length === 0 ? value : redactJson(value, detectors);
}

/** Every string value in a JSON value redacted; the same value when none changed. */
function redactJson(value: unknown, detectors: readonly RedactionDetector[]): unknown {
  if (typeof value === "string") return redactText(value, detectors);
  if (Array.isArray(value)) return value.map((item) => redactJson(item, detectors));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactJson(item, detectors)]));
}

/**
 * The reasoning settings to ask the model with. A provider that signs its reasoning (Anthropic)
 * is not asked for any while answers are redacted: signed reasoning cannot be redacted without
 * breaking its signature, and kept as written it would store what redaction must keep out.
 */
export function requestedReasoning<T>(reasoning: T | undefined, signsReasoning: boolean, redaction: Setting): T | undefined {
  return signsReasoning && detectorsFor(redaction, "model_output").length > 0 ? undefined : reasoning;
}

/**
 * Whether an answer's text may reach watchers as it streams. Not while model output is redacted:
 * a delta could show what the saved message then hides, so watchers get the message whole, redacted.
 */
export function streamsAnswerText(redaction: Setting): boolean {
  return detectorsFor(redaction, "model_output").length === 0;
}
