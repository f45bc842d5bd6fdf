/**
 * Agents: naming the version a session runs, and moving an agent between tenants or
 * environments as a file (a version's `definition` is a valid create body as it stands).
 */
import type { PlatformClient } from "./client.ts";
import { expectData } from "./errors.ts";
import type { Agent, AgentDefinition, CanaryRequest } from "./types.ts";

/** `agt_…` (the latest version), `agt_…@7` or `agt_…@production`: what `POST /v1/sessions` takes as `agent`. */
export function agentRef(agentId: string, at?: number | string): string {
  if (at === undefined) return agentId;
  if (typeof at === "number" && (!Number.isInteger(at) || at < 1)) throw new RangeError(`not a version: ${at}`);
  return `${agentId}@${at}`;
}

/** A version's definition (the latest when `version` is absent): the export, ready for `importAgent`. */
export async function exportAgent(client: PlatformClient, agentId: string, version?: number): Promise<AgentDefinition> {
  if (version === undefined)
    return (await expectData(client.GET("/v1/agents/{agent_id}", { params: { path: { agent_id: agentId } } }))).definition;
  const found = await expectData(
    client.GET("/v1/agents/{agent_id}/versions/{version}", { params: { path: { agent_id: agentId, version: String(version) } } }),
  );
  return found.definition;
}

/**
 * Creates an agent from an exported definition, in this client's tenant. MCP header values come
 * out of an export masked; `headers` gives them again, by server name then header name.
 */
export async function importAgent(
  client: PlatformClient,
  definition: AgentDefinition,
  options: { headers?: Record<string, Record<string, string>> } = {},
): Promise<Agent> {
  const tools = definition.tools?.map((tool) =>
    tool.type === "mcp" && options.headers?.[tool.name] ? { ...tool, headers: { ...tool.headers, ...options.headers[tool.name] } } : tool,
  );
  return expectData(client.POST("/v1/agents", { body: tools ? { ...definition, tools } : definition }));
}

/**
 * Points `alias` at `version`: a rollout, or a rollback when the version is an older one. With
 * `canary`, another version takes `percent` of the alias's new sessions and is rolled back by the
 * platform when its `rollback` rule is crossed; without, any canary the alias carried goes.
 */
export async function setAlias(
  client: PlatformClient,
  agentId: string,
  alias: string,
  version: number,
  canary?: CanaryRequest,
): Promise<Agent> {
  return expectData(
    client.PUT("/v1/agents/{agent_id}/aliases/{alias}", {
      params: { path: { agent_id: agentId, alias } },
      body: canary ? { version, canary } : { version },
    }),
  );
}

/**
 * The alias moves to its canary's version; a 409 `PlatformError` when it carries none (never set, or rolled back),
 * or, with `expectedVersion`, when its canary is of another version (replaced since it was read).
 */
export async function promoteCanary(client: PlatformClient, agentId: string, alias: string, expectedVersion?: number): Promise<Agent> {
  return expectData(
    client.POST("/v1/agents/{agent_id}/aliases/{alias}/promote", {
      params: {
        path: { agent_id: agentId, alias },
        ...(expectedVersion === undefined ? {} : { query: { expected_version: expectedVersion } }),
      },
    }),
  );
}
