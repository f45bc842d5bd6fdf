/**
 * The output request of the current run's model calls, and the tool definitions a context fit
 * counts for them: the session's tools and, when the run owes a structured answer, the output
 * tool (or the schema a `response_format` carries: as large), so a window is never fitted
 * without the room the schema takes.
 */
import type { AgentHost } from "../engine/engine";
import type { ToolDefinition } from "../model/provider";
import { type OutputRequest, outputRequest } from "./output-tool";

export function outputToolsFor(host: AgentHost, tools: ToolDefinition[]): { tools: ToolDefinition[]; output: OutputRequest | null } {
  const output = outputRequest(host.store.runOutputSchema() ?? null, tools.map((tool) => tool.name));
  return { tools: output ? [...tools, output.tool] : tools, output };
}
