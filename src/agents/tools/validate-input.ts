/** Validates a tool call's input against the tool's JSON Schema before anything runs. */
import { Validator } from "@cfworker/json-schema";

/** At most this many schema errors are reported to the model; the rest add noise. */
const MAX_REPORTED_ERRORS = 5;

const validators = new WeakMap<object, Validator>();

export function validateToolInput(schema: Record<string, unknown>, input: unknown): string | null {
  let result: ReturnType<Validator["validate"]>;
  try {
    let validator = validators.get(schema);
    if (!validator) {
      validator = new Validator(schema as never, "2020-12", false);
      validators.set(schema, validator);
    }
    result = validator.validate(input);
  } catch (err) {
    // A schema the validator cannot use (a bad pattern, a dangling $ref) is the tool's fault,
    // not the session's: the model is told, and the run goes on.
    return `the tool's input_schema cannot be used: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (result.valid) return null;
  // The validator reports the failing keyword chain; the leaves are the useful lines.
  const leaves = result.errors.filter((e) => !result.errors.some((other) => other !== e && other.instanceLocation.startsWith(e.instanceLocation) && other.keywordLocation.startsWith(e.keywordLocation + "/")));
  const lines = (leaves.length ? leaves : result.errors)
    .slice(0, MAX_REPORTED_ERRORS)
    .map((e) => `${e.instanceLocation || "#"}: ${e.error}`);
  return `invalid input: ${lines.join("; ")}`;
}
