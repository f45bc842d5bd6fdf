/**
 * Validates a tool call's input against the tool's JSON Schema before anything runs, with the
 * platform's one validator (src/shared/json-schema), whose patterns run in linear time.
 */
import { validateJson } from "../../../shared/json-schema/validator";

/** Null when the input is valid; otherwise the text the model sees as the error result. */
export function validateToolInput(schema: Record<string, unknown>, input: unknown): string | null {
  const result = validateJson(schema, input);
  if (result.valid) return null;
  // A schema that cannot be used (a pattern RE2 cannot run, a dangling $ref) is the tool's fault,
  // not the session's: the model is told, and the run goes on.
  if (result.unusable !== null) return `the tool's input_schema cannot be used: ${result.unusable}`;
  return `invalid input: ${result.errors.join("; ")}`;
}
