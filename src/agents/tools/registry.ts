/**
 * The tool registry: a session's `tools` list turned into the tools the loop runs. The
 * definitions sent to the model are derived from this same map, so what the model is told
 * and what the loop runs can never drift apart.
 */
import type { ToolDefinition } from "../model/provider";
import type { ToolSpec } from "../types";
import { getTimeTool } from "./builtin/get-time";
import { httpFetchTool } from "./builtin/http-fetch-tool";
import { runCodeTool } from "./builtin/run-code";
import type { Tool } from "./tool";
import { webhookTool } from "./webhook";

/** The name rule shared by the model providers' tool APIs. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** More tools than this make a prompt no model handles well. */
export const MAX_TOOLS_PER_SESSION = 64;

/**
 * A Map, not an object literal: a tenant names the tool, and on a plain object `constructor`,
 * `toString` or `__proto__` would be found on the prototype and taken for built-ins.
 */
export const BUILTIN_TOOLS: ReadonlyMap<string, Tool> = new Map([
  ["get_time", getTimeTool],
  ["http_fetch", httpFetchTool],
  ["run_code", runCodeTool],
]);

export type Toolbox = ReadonlyMap<string, Tool>;

/** Checks a session's tool list; returns a readable problem, or null when it is valid. */
export function checkToolSpecs(specs: readonly ToolSpec[]): string | null {
  if (specs.length > MAX_TOOLS_PER_SESSION) return `at most ${MAX_TOOLS_PER_SESSION} tools per session`;
  const seen = new Set<string>();
  for (const [i, spec] of specs.entries()) {
    if (!TOOL_NAME_PATTERN.test(spec.name)) return `tools[${i}].name must match ${TOOL_NAME_PATTERN.source}`;
    if (seen.has(spec.name)) return `tools[${i}].name "${spec.name}" is used twice`;
    seen.add(spec.name);
    if (spec.type === "builtin" && !BUILTIN_TOOLS.has(spec.name)) {
      return `tools[${i}]: no built-in tool is named "${spec.name}" (known: ${[...BUILTIN_TOOLS.keys()].join(", ")})`;
    }
  }
  return null;
}

export function buildToolbox(specs: readonly ToolSpec[]): Toolbox {
  const tools = new Map<string, Tool>();
  for (const spec of specs) {
    const tool = toTool(spec);
    if (tool) tools.set(spec.name, tool);
  }
  return tools;
}

export function toolDefinitions(toolbox: Toolbox): ToolDefinition[] {
  return [...toolbox.values()].map((tool) => tool.definition);
}

function toTool(spec: ToolSpec): Tool | null {
  switch (spec.type) {
    case "builtin": {
      const builtin = BUILTIN_TOOLS.get(spec.name);
      if (!builtin) return null;
      return spec.requires_approval ? { ...builtin, requiresApproval: true } : builtin;
    }
    case "webhook":
      return webhookTool(spec);
    case "client":
      return {
        kind: "client",
        requiresApproval: spec.requires_approval === true,
        // The caller runs it; the platform never repeats it, so the flag has no effect.
        atMostOnce: true,
        definition: { name: spec.name, description: spec.description, input_schema: spec.input_schema },
      };
  }
}
