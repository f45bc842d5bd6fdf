/**
 * The checks on an `output_schema` that its zod schema cannot make, as tool schemas get them
 * (tool-specs.ts): every pattern must run on RE2 within the size bounds, and the schema must be
 * usable by the validator at all (a `$ref` that points nowhere is found by a trial validation,
 * which runs no pattern on a value that has none). Pure.
 */
import { checkSchema, validateJson } from "../../json-schema/validator";
import type { OutputSchema } from "../../agents/types";
import type { FieldError } from "../errors";

export function outputSchemaProblems(schema: OutputSchema | null | undefined, path = "body.output_schema"): FieldError[] {
  if (!schema) return [];
  const problems = checkSchema(schema);
  if (problems.length > 0) return problems.map((problem) => ({ path: [path, ...problem.path].join("."), message: problem.message }));
  const trial = validateJson(schema, {});
  if (!trial.valid && trial.unusable !== null) return [{ path, message: `The schema cannot be used: ${trial.unusable}` }];
  return [];
}
