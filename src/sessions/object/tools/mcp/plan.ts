/**
 * From what each MCP server listed to the tools a run offers: `allowed_tools` narrowing, names
 * (naming.ts), the server's input schema checked like a declared tool's, and at-most-once unless
 * the server's annotations say a repeat is harmless. Pure: every refusal is a sentence for the
 * session's `error`, naming the server and the tool.
 */
import { jsonDepth, MAX_JSON_DEPTH } from "../../../../shared/json-depth";
import { MAX_REQUEST_PATTERN_SIZE } from "../../../../shared/json-schema/patterns";
import { checkSchema, describeProblems, estimateSchemaPatterns } from "../../../../shared/json-schema/validator";
import type { McpToolSpec, ToolSpec } from "../../../../session-config/types";
import { offeredToolName } from "../../../../session-config/mcp-naming";
import { MAX_RUN_TOOLS } from "../../../../session-config/bounds";

export { MAX_RUN_TOOLS };
/** The same caps as a declared tool's description and input schema. */
export const MCP_MAX_DESCRIPTION_CHARS = 4_000;
export const MCP_MAX_SCHEMA_CHARS = 32 * 1024;
/** Patterns of all discovered schemas together, estimated before any is compiled. */
export const MAX_DISCOVERED_PATTERN_SIZE = 4 * MAX_REQUEST_PATTERN_SIZE;

/** One entry of a server's `tools/list`, as far as the platform reads it. */
export interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; idempotentHint?: boolean };
  execution?: { taskSupport?: string };
}

/** A tool of the run, as saved in the session object's storage when the run starts. */
export interface DiscoveredTool {
  /** The name offered to the model: `<server>__<tool>`. */
  name: string;
  /** The session's `mcp` tool it comes from. */
  server: string;
  /** Its name on the server, used in `tools/call`. */
  remote_name: string;
  description: string;
  input_schema: Record<string, unknown>;
  /** The `outputSchema` the server listed: each call's structured result is checked against it. */
  output_schema?: Record<string, unknown>;
  at_most_once: boolean;
}

/** `unchecked`: one sentence for each tool whose output schema is left out, its results passed on unchecked. */
export type RunToolsPlan = { ok: true; tools: DiscoveredTool[]; unchecked: string[] } | { ok: false; problem: string };

/**
 * A repeat is harmless only where the server says so: read-only tools change nothing, and
 * idempotent ones change nothing more when called again with the same input. Anything else
 * (no annotations, or `false`) is at-most-once.
 */
export function isRepeatable(annotations: ListedTool["annotations"]): boolean {
  return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
}

export function planRunTools(specs: readonly ToolSpec[], listings: ReadonlyMap<string, readonly ListedTool[]>): RunToolsPlan {
  const taken = new Set(specs.filter((spec) => spec.type !== "mcp").map((spec) => spec.name));
  const tools: DiscoveredTool[] = [];
  const unchecked: string[] = [];
  let patterns = 0;
  let outputPatterns = 0;
  for (const spec of specs) {
    if (spec.type !== "mcp") continue;
    const listed = listings.get(spec.name) ?? [];
    for (const entry of narrow(spec, listed)) {
      const planned = planTool(spec, entry, taken);
      if (typeof planned === "string") return { ok: false, problem: planned };
      patterns += estimateSchemaPatterns(planned.tool.input_schema);
      const output = planned.tool.output_schema;
      const outputSize = output ? estimateSchemaPatterns(output) : 0;
      // Output patterns get a budget of their own: past it, a schema is left out rather than the run refused.
      if (output && outputPatterns + outputSize > MAX_DISCOVERED_PATTERN_SIZE) {
        delete planned.tool.output_schema;
        unchecked.push(`${planned.where}: the output schemas' patterns are too large to check in all`);
      } else outputPatterns += outputSize;
      if (planned.unchecked !== null) unchecked.push(planned.unchecked);
      taken.add(planned.tool.name);
      tools.push(planned.tool);
    }
    if (taken.size > MAX_RUN_TOOLS) {
      return {
        ok: false,
        problem: `MCP server "${spec.name}" brings the run to ${taken.size} tools; at most ${MAX_RUN_TOOLS} can be offered in all: choose its tools with allowed_tools`,
      };
    }
  }
  if (patterns > MAX_DISCOVERED_PATTERN_SIZE) {
    return {
      ok: false,
      problem: `the MCP servers' input schemas have patterns too large to check (more than ${MAX_DISCOVERED_PATTERN_SIZE} steps in all)`,
    };
  }
  return { ok: true, tools, unchecked };
}

/**
 * The server's tools the session wants, each name once, in the server's order. A tool that
 * must run as a task cannot be called with a plain `tools/call`, so it is not offered.
 */
function narrow(spec: McpToolSpec, listed: readonly ListedTool[]): ListedTool[] {
  const allowed = spec.allowed_tools ? new Set(spec.allowed_tools) : null;
  const seen = new Set<string>();
  return listed.filter((tool) => {
    if (seen.has(tool.name) || (allowed && !allowed.has(tool.name)) || tool.execution?.taskSupport === "required") return false;
    seen.add(tool.name);
    return true;
  });
}

interface PlannedTool {
  tool: DiscoveredTool;
  where: string;
  /** Why its output schema was left out, or null. */
  unchecked: string | null;
}

function planTool(spec: McpToolSpec, tool: ListedTool, taken: ReadonlySet<string>): PlannedTool | string {
  const where = `MCP server "${spec.name}", tool "${tool.name.slice(0, 128)}"`;
  const schema = tool.inputSchema;
  const inputProblem = schemaProblem(schema, "input");
  if (inputProblem !== null) return `${where}: ${inputProblem}`;
  // The output schema only checks results: one the platform cannot use is left out, and the tool still offered.
  const outputProblem = tool.outputSchema === undefined ? null : schemaProblem(tool.outputSchema, "output");
  const output = outputProblem === null ? tool.outputSchema : undefined;
  const name = offeredToolName(spec.name, tool.name, taken);
  if (name === null) return `${where}: no name could be found for it that no other tool uses; leave it out with allowed_tools`;
  const description = (tool.description ?? tool.title ?? `The tool ${tool.name} of the MCP server ${spec.name}.`).slice(
    0,
    MCP_MAX_DESCRIPTION_CHARS,
  );
  return {
    tool: {
      name,
      server: spec.name,
      remote_name: tool.name,
      description: description.trim() === "" ? `The tool ${tool.name} of the MCP server ${spec.name}.` : description,
      input_schema: schema,
      ...(output !== undefined ? { output_schema: output } : {}),
      at_most_once: !isRepeatable(tool.annotations),
    },
    where,
    unchecked: outputProblem === null ? null : `${where}: ${outputProblem}`,
  };
}

/** Why a listed schema (`which`: input or output) cannot be used, or null. */
function schemaProblem(schema: unknown, which: "input" | "output"): string | null {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema) || (schema as Record<string, unknown>).type !== "object") {
    return `its ${which} schema is not a JSON Schema of type "object"`;
  }
  if (JSON.stringify(schema).length > MCP_MAX_SCHEMA_CHARS) return `its ${which} schema is longer than ${MCP_MAX_SCHEMA_CHARS} characters`;
  if (jsonDepth(schema) > MAX_JSON_DEPTH) return `its ${which} schema is nested more than ${MAX_JSON_DEPTH} levels deep`;
  const problems = checkSchema(schema);
  if (problems.length > 0) {
    const advice = which === "input" ? "; leave it out with allowed_tools" : "";
    return `its ${which} schema cannot be used (${describeProblems(problems)})${advice}`;
  }
  return null;
}
