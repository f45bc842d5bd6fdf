/**
 * How a run's `output_schema` is asked of a model. Anthropic gets a tool whose input is the
 * answer (`respond`), forced once the model answers at all; Chat Completions servers get
 * `response_format: json_schema`, strict where the schema allows it. Pure.
 */
import type { OutputRequest } from "../model/provider";
import type { OutputSchema } from "../../../session-config/types";

/** The output tool's name, unless a session tool already has it (then `respond_2`, …). */
export const OUTPUT_TOOL_NAME = "respond";

export const OUTPUT_TOOL_DESCRIPTION =
  "Give your final answer. Call this once you have everything you need, instead of answering in text: " +
  "its input is the answer, and it must be valid for the input schema.";

export type { OutputRequest };

export function outputRequest(schema: OutputSchema | null, toolNames: Iterable<string>): OutputRequest | null {
  if (schema === null) return null;
  const taken = new Set(toolNames);
  let name = OUTPUT_TOOL_NAME;
  for (let n = 2; taken.has(name); n++) name = `${OUTPUT_TOOL_NAME}_${n}`;
  return { schema, tool: { name, description: OUTPUT_TOOL_DESCRIPTION, input_schema: schema } };
}

/**
 * Keywords OpenAI's strict structured outputs accept. A schema with any other keyword, or an
 * object that does not list every property as required and forbid others, is refused in strict
 * mode; it is then sent with `strict: false` (the server follows it as far as it can) and the
 * platform's validator alone decides.
 */
const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** Whether `schema` meets OpenAI's strict mode: an object at the top, every object closed and fully required. */
export function fitsStrictMode(schema: OutputSchema): boolean {
  if (schema.type !== "object") return false;
  return strictNode(schema);
}

function strictNode(node: unknown): boolean {
  if (typeof node !== "object" || node === null) return typeof node === "boolean";
  if (Array.isArray(node)) return node.every(strictNode);
  const record = node as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!STRICT_KEYWORDS.has(key)) return false;
  const types = Array.isArray(record.type) ? record.type : [record.type];
  if (types.includes("object") || record.properties !== undefined) {
    const properties = (record.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(record.required) ? record.required : [];
    if (record.additionalProperties !== false) return false;
    if (Object.keys(properties).some((name) => !required.includes(name))) return false;
    if (!Object.values(properties).every(strictNode)) return false;
  }
  for (const key of ["items", "anyOf"] as const) if (record[key] !== undefined && !strictNode(record[key])) return false;
  for (const key of ["$defs", "definitions"] as const) {
    if (record[key] !== undefined && !Object.values(record[key] as Record<string, unknown>).every(strictNode)) return false;
  }
  return true;
}
