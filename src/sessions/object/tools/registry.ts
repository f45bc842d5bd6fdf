/**
 * The tool registry: a session's `tools` list turned into the tools the loop runs. The
 * definitions sent to the model are derived from this same map, so what the model is told
 * and what the loop runs can never drift apart.
 */
import type { ToolDefinition } from "../model/provider";
import type { McpToolSpec, ToolSpec } from "../../../session-config/types";
import { getTimeTool } from "./builtin/get-time";
import { memoryTools } from "./builtin/memory";
import type { MemoryGrant } from "../../../session-config/memory-namespace";
import { httpFetchTool } from "./builtin/http-fetch-tool";
import { runCodeTool } from "./builtin/run-code";
import type { Tool } from "./tool";
import { TOOL_NAME_PATTERN } from "../../../session-config/tool-name";
import { isMcpServerName, MAX_MCP_SERVER_NAME_CHARS, mcpPrefix } from "../../../session-config/mcp-naming";
import { mcpTool } from "./mcp/mcp-tool";
import type { DiscoveredTool } from "./mcp/plan";
import { webhookTool } from "./webhook";
import { agentTool } from "./agent-tool";
import { a2aTool } from "./a2a/a2a-tool";
import { MAX_APPROVAL_TIMEOUT_SECONDS, MAX_TOOLS_PER_SESSION } from "../../../session-config/bounds";

export { TOOL_NAME_PATTERN };
export { MAX_APPROVAL_TIMEOUT_SECONDS, MAX_TOOLS_PER_SESSION };

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
  const listProblem = checkToolList(specs);
  if (listProblem) return listProblem;
  for (const [i, spec] of specs.entries()) {
    const timeoutProblem = approvalTimeoutProblem(spec);
    if (timeoutProblem) return `tools[${i}].${timeoutProblem}`;
  }
  return null;
}

/** The rules of the list as a whole: how many, unique names, known built-ins. */
export function checkToolList(specs: readonly ToolSpec[]): string | null {
  if (specs.length > MAX_TOOLS_PER_SESSION) return `at most ${MAX_TOOLS_PER_SESSION} tools per session`;
  const seen = new Set<string>();
  for (const [i, spec] of specs.entries()) {
    if (!TOOL_NAME_PATTERN.test(spec.name)) return `tools[${i}].name must match ${TOOL_NAME_PATTERN.source}`;
    if (seen.has(spec.name)) return `tools[${i}].name "${spec.name}" is used twice`;
    seen.add(spec.name);
    if (spec.type === "builtin" && !BUILTIN_TOOLS.has(spec.name)) {
      return `tools[${i}]: no built-in tool is named "${spec.name}" (known: ${[...BUILTIN_TOOLS.keys()].join(", ")})`;
    }
    if (spec.type === "mcp" && !isMcpServerName(spec.name)) {
      return `tools[${i}].name: an MCP server's name is at most ${MAX_MCP_SERVER_NAME_CHARS} letters, digits, "-" or single "_" between them`;
    }
  }
  // An MCP server's tools are offered as `<server>__<tool>`: no other tool may take such a name.
  for (const server of specs.filter((spec) => spec.type === "mcp")) {
    const clash = specs.find((spec) => spec.type !== "mcp" && spec.name.startsWith(mcpPrefix(server.name)));
    if (clash)
      return `the tool "${clash.name}" starts with "${mcpPrefix(server.name)}", which names the tools of the MCP server "${server.name}"`;
  }
  return null;
}

/** Pure: what is wrong with a tool's `approval_timeout_seconds`, or null (absent is fine). */
export function approvalTimeoutProblem(spec: Pick<ToolSpec, "requires_approval" | "approval_timeout_seconds">): string | null {
  const timeout = spec.approval_timeout_seconds;
  if (timeout === undefined) return null;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > MAX_APPROVAL_TIMEOUT_SECONDS) {
    return `approval_timeout_seconds must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_SECONDS}`;
  }
  return spec.requires_approval === true ? null : "approval_timeout_seconds needs requires_approval: true";
}

/** An MCP server's timeout holds for each tool it offers, as its `requires_approval` does. */
function approvalTimeoutMs(spec: ToolSpec): number | null {
  return spec.requires_approval === true && spec.approval_timeout_seconds !== undefined ? spec.approval_timeout_seconds * 1000 : null;
}

/**
 * The tools a run can use: the declared ones, and the tools its MCP servers offered when the run
 * started (`discovered`, saved in the session object's storage), and with a `memory` grant the
 * memory tools (no declared tool may take their names). An MCP entry is a source of tools, not a
 * tool itself.
 */
export function buildToolbox(
  specs: readonly ToolSpec[],
  discovered: readonly DiscoveredTool[] = [],
  memory: MemoryGrant | null = null,
): Toolbox {
  const tools = new Map<string, Tool>(memory ? memoryTools(memory) : []);
  for (const spec of specs) {
    const tool = toTool(spec);
    if (tool) tools.set(spec.name, tool);
  }
  const servers = new Map(specs.filter((spec): spec is McpToolSpec => spec.type === "mcp").map((spec) => [spec.name, spec]));
  for (const found of discovered) {
    const server = servers.get(found.server);
    if (server && !tools.has(found.name))
      tools.set(found.name, { ...mcpTool(found, server), approvalTimeoutMs: approvalTimeoutMs(server) });
  }
  return tools;
}

export function toolDefinitions(toolbox: Toolbox): ToolDefinition[] {
  return [...toolbox.values()].map((tool) => tool.definition);
}

function toTool(spec: ToolSpec): Tool | null {
  const tool = baseTool(spec);
  return tool && { ...tool, approvalTimeoutMs: approvalTimeoutMs(spec) };
}

function baseTool(spec: ToolSpec): Tool | null {
  switch (spec.type) {
    // A source of tools, and a tool the provider runs: neither is the loop's to run.
    case "mcp":
    case "provider":
      return null;
    case "builtin": {
      const builtin = BUILTIN_TOOLS.get(spec.name);
      if (!builtin) return null;
      return spec.requires_approval ? { ...builtin, requiresApproval: true } : builtin;
    }
    case "webhook":
      return webhookTool(spec);
    case "agent":
      return agentTool(spec);
    case "a2a":
      return a2aTool(spec);
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
