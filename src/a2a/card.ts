/**
 * An agent's A2A agent card: its JSON-RPC endpoint (A2A 1.0, and 0.3 for older clients, on the
 * same URL), streaming and push notifications on, bearer authentication; and the same card in
 * 0.3's shape, for a client that does not ask for 1.0. Pure.
 */
import type { AgentCard } from "@a2a-js/sdk";
import type { Agent } from "../agents/types";

/** The JSON-RPC endpoint of an agent, under the gateway's origin. */
export function a2aEndpoint(origin: string, agentId: string): string {
  return `${origin}/v1/agents/${agentId}/a2a`;
}

const MODES = ["text/plain", "application/json"];
const BEARER_DESCRIPTION = "An API key, a JWT or an end user's token of the platform: sessions:write to send, sessions:read to read.";

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
          value: { description: BEARER_DESCRIPTION, scheme: "bearer", bearerFormat: "" },
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

/**
 * Whether a card request asks for 0.3's shape: as the SDK's reference server decides, no
 * `A2A-Version` header (or an empty one) is a 0.3 client, and so is a version below 1.0.
 */
export function wantsLegacyCard(versionHeader: string | null | undefined): boolean {
  const version = versionHeader?.trim() ?? "";
  if (version === "") return true;
  const match = /^(\d+)(?:\.(\d+))?/.exec(version);
  return match !== null && Number(match[1]) < 1;
}

/**
 * The card as A2A 0.3 spells it (JSON Schema shapes: `url` and `preferredTransport`, security
 * schemes with a `type`), with the 1.0 interfaces embedded as the reference server does.
 */
export function legacyAgentCard(agent: Pick<Agent, "id" | "name" | "description" | "version">, origin: string): Record<string, unknown> {
  const url = a2aEndpoint(origin, agent.id);
  const description = agent.description ?? `The platform agent ${agent.name}.`;
  return {
    name: agent.name,
    description,
    version: String(agent.version),
    url,
    preferredTransport: "JSONRPC",
    protocolVersion: "0.3",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [{ id: agent.id, name: agent.name, description, tags: [], examples: [], inputModes: MODES, outputModes: MODES }],
    supportsAuthenticatedExtendedCard: false,
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: BEARER_DESCRIPTION } },
    security: [{ bearer: [] }],
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
  };
}
