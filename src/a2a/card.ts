/**
 * An agent's A2A agent card: its JSON-RPC endpoint (A2A 1.0, and 0.3 for older clients, on the
 * same URL), streaming and push notifications on, bearer authentication. Pure.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { Agent } from "../agents/types";

/** The JSON-RPC endpoint of an agent, under the gateway's origin. */
export function a2aEndpoint(origin: string, agentId: string): string {
  return `${origin}/v1/agents/${agentId}/a2a`;
}

const MODES = ["text/plain", "application/json"];

export function agentCard(agent: Pick<Agent, "id" | "name" | "description" | "version">, origin: string): AgentCard {
  const url = a2aEndpoint(origin, agent.id);
  const description = agent.description ?? `The platform agent ${agent.name}.`;
  return {
    name: agent.name,
    description,
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    version: String(agent.version),
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "An API key or a JWT of the platform, with sessions:write.", scheme: "bearer", bearerFormat: "" },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [
      {
        id: agent.id,
        name: agent.name,
        description,
        tags: [],
        examples: [],
        inputModes: MODES,
        outputModes: MODES,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
