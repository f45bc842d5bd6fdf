/**
 * The checks on an `output_schema` that its zod schema cannot make, as tool schemas get them
 * (tool-specs.ts): every pattern must run on RE2 within the size bounds, and the schema must be
 * usable by the validator at all: every `#/…` reference must point into the schema (the validator
 * would find out only when an answer reaches it), and a trial validation catches the rest. Pure.
 */
import { walkSchema } from "../shared/json-schema/schema-walk";
import { checkSchema, validateJson } from "../shared/json-schema/validator";
import type { OutputSchema } from "../session-config/types";
import type { FieldError } from "../problems";

export function outputSchemaProblems(schema: OutputSchema | null | undefined, path = "body.output_schema"): FieldError[] {
  if (!schema) return [];
  const problems = checkSchema(schema);
  if (problems.length > 0) return problems.map((problem) => ({ path: [path, ...problem.path].join("."), message: problem.message }));
  const dangling: FieldError[] = [];
  walkSchema(schema, (node, at) => {
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/") && resolvePointer(schema, node.$ref) === undefined) {
      dangling.push({ path: [path, ...at, "$ref"].join("."), message: `Points to nothing in the schema: ${node.$ref}` });
    }
  });
  if (dangling.length > 0) return dangling;
  const trial = validateJson(schema, {});
  if (!trial.valid && trial.unusable !== null) return [{ path, message: `The schema cannot be used: ${trial.unusable}` }];
  return [];
}

/** The value at a local JSON Pointer (`#/$defs/item`), or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
