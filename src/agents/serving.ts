/** Which version of an agent serves callers that name only the agent (a chat, an MCP tool): its `production` alias, else its latest. Pure. */
import type { Agent } from "./types";

export const SERVING_ALIAS = "production";

export function servingRef(agent: Pick<Agent, "id" | "aliases">): string {
  return agent.aliases[SERVING_ALIAS] !== undefined ? `${agent.id}@${SERVING_ALIAS}` : agent.id;
}
