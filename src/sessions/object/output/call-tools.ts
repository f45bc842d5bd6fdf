/**
 * The output request of the current run's model calls, and the tool definitions a context fit
 * counts for them: the session's tools and, when the run owes a structured answer, the output
 * tool (or the schema a `response_format` carries: as large), so a window is never fitted
 * without the room the schema takes.
 */
import type { SessionStore } from "../store/store";
import type { ToolDefinition } from "../model/provider";
import { type OutputRequest, outputRequest } from "./output-tool";

export function outputToolsFor(
  store: Pick<SessionStore, "runOutputSchema">,
  tools: ToolDefinition[],
): { tools: ToolDefinition[]; output: OutputRequest | null } {
  const output = outputRequest(
    store.runOutputSchema() ?? null,
    tools.map((tool) => tool.name),
  );
  return { tools: output ? [...tools, output.tool] : tools, output };
}
