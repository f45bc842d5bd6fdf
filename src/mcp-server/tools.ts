/**
 * The tenant's live agents as MCP tools: the agent's name and description, the input
 * `{ input: string }`, and the agent's output schema as `outputSchema` when it has one that MCP
 * can carry (MCP requires an object schema there). Pure.
 */
import type { Agent } from "../agents/types";

/** Agent names are at most 64 characters of `[A-Za-z0-9_-]`, which MCP tool names allow as they are. */
export const INPUT_SCHEMA = {
  type: "object",
  properties: { input: { type: "string", description: "What to ask the agent." } },
  required: ["input"],
} as const;

export interface McpTool {
  name: string;
  description: string;
  inputSchema: typeof INPUT_SCHEMA;
  outputSchema?: Record<string, unknown>;
}

/** The agent's output schema when MCP can carry it as `outputSchema` (an object schema), else null: the answer then goes as JSON text. */
export function toolOutputSchema(agent: Pick<Agent, "definition">): Record<string, unknown> | null {
  const schema = agent.definition.output_schema as Record<string, unknown> | null | undefined;
  return schema && typeof schema === "object" && schema.type === "object" ? schema : null;
}

export function agentTool(agent: Pick<Agent, "name" | "description" | "definition">): McpTool {
  const outputSchema = toolOutputSchema(agent);
  return {
    name: agent.name,
    description: agent.description ?? `The agent ${agent.name}.`,
    inputSchema: INPUT_SCHEMA,
    ...(outputSchema ? { outputSchema } : {}),
  };
}
