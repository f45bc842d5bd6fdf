/**
 * The tenant's redaction applied where content enters a session's storage: a user message's text
 * (as it is stored, `storeInput`), a tool's output (as its result is saved, with the cut to
 * `max_tool_output_chars`), and the text of a model's answer (as the assistant message is saved).
 * The setting is the run's, carried in by the operation that started it (`RunOptions.redaction`).
 */
import { detectorsFor, type RedactionSettings } from "../../shared/redaction/settings";
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
 * An answer's content as saved: the text of its text blocks redacted. Tool calls' arguments are
 * what the tools need and reasoning blocks are signed by the provider: both are kept as written.
 */
export function redactAnswer(content: ContentBlock[], redaction: Setting): ContentBlock[] {
  const detectors = detectorsFor(redaction, "model_output");
  if (detectors.length === 0) return content;
  return content.map((block) => (block.type === "text" ? { ...block, text: redactText(block.text, detectors) } : block));
}

/**
 * Whether an answer's text may reach watchers as it streams. Not while model output is redacted:
 * a delta could show what the saved message then hides, so watchers get the message whole, redacted.
 */
export function streamsAnswerText(redaction: Setting): boolean {
  return detectorsFor(redaction, "model_output").length === 0;
}
