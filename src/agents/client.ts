/**
 * The gateway's typed client of a tenant's agent store: each answer becomes its value, or the
 * problem its machine reason stands for, in one switch (`agentProblem`). Resolving a session's
 * agent goes through the isolate's version cache (version-cache.ts): one call to the store,
 * which leaves out a definition the isolate already holds.
 */
import type { AuditContext } from "../audit/types";
import type { Env } from "../env";
import { agentStoreStub } from "../objects";
import { ApiError } from "../problems";
import type { Page } from "../session-config/types";
import { maskToolSpecs } from "../session-config/masking";
import type { ToolSpec } from "../session-config/types";
import { type AgentRef } from "./refs";
import type {
  Agent,
  AgentDefinition,
  AgentFailure,
  AgentListInput,
  AgentResult,
  AgentVersion,
  NewAgent,
  NewVersion,
  ResolvedAgent,
} from "./types";
import { VersionCache } from "./version-cache";
import type { CanarySpec } from "./canary";

export const AGENT_NOT_FOUND = "No such agent.";

/** The one place a store's machine reason becomes a problem and its text. */
export function agentProblem(failure: AgentFailure): ApiError {
  switch (failure.reason) {
    case "agent_not_found":
      return new ApiError("not_found", AGENT_NOT_FOUND);
    case "version_not_found":
      return new ApiError("not_found", `The agent has no version ${failure.version}.`);
    case "alias_not_found":
      return new ApiError("not_found", `The agent has no alias "${failure.alias}".`);
    case "archived":
      return new ApiError("conflict", "The agent is archived: no new sessions or versions.");
    case "name_taken":
      return new ApiError("conflict", `Another live agent is named "${failure.name}".`);
    case "version_moved":
      return new ApiError(
        "conflict",
        `The agent changed while this request was made (now at version ${failure.latest}); read it and try again.`,
      );
    case "limit_reached":
      return new ApiError("conflict", `At most ${failure.max} ${failure.what} ${failure.what === "agents" ? "per tenant" : "per agent"}.`);
    case "canary_invalid":
      return new ApiError("validation_failed", undefined, { errors: [{ path: failure.path, message: failure.message }] });
    case "no_canary":
      return new ApiError("conflict", `The alias "${failure.alias}" carries no canary (none was set, or it was rolled back).`);
    case "canary_changed":
      return new ApiError(
        "conflict",
        `The alias "${failure.alias}"'s canary is of version ${failure.version}, not the expected ${failure.expected}: read the agent and try again.`,
      );
  }
}

function value<T>(result: AgentResult<T>): T {
  if (result.ok) return result.value;
  throw agentProblem(result);
}

/** A definition as answers show it: MCP header values masked. */
export function maskedDefinition(definition: AgentDefinition): AgentDefinition {
  const tools = definition.tools as ToolSpec[] | undefined;
  return tools ? { ...definition, tools: maskToolSpecs(tools) } : definition;
}

export function maskedAgent(agent: Agent): Agent {
  return { ...agent, definition: maskedDefinition(agent.definition) };
}

export function maskedVersion(version: AgentVersion): AgentVersion {
  return { ...version, definition: maskedDefinition(version.definition) };
}

/** This isolate's versions, shared by every request it serves (keyed by tenant). */
const VERSIONS = new VersionCache();

type Stub = ReturnType<typeof agentStoreStub>;

export class AgentClient {
  readonly #stub: Stub;
  readonly #tenantId: string;

  constructor(env: Env, tenantId: string) {
    this.#stub = agentStoreStub(env, tenantId);
    this.#tenantId = tenantId;
  }

  async create(input: NewAgent, by?: AuditContext): Promise<Agent> {
    return value((await this.#stub.create(this.#tenantId, input, by)) as AgentResult<Agent>);
  }

  async get(agentId: string): Promise<Agent> {
    return value((await this.#stub.get(this.#tenantId, agentId)) as AgentResult<Agent>);
  }

  async list(input: AgentListInput): Promise<Page<Agent>> {
    return (await this.#stub.list(this.#tenantId, input)) as Page<Agent>;
  }

  /** The agent at its new (or unchanged) version; `moved` when another version came since `basedOn`. */
  async addVersion(agentId: string, input: NewVersion, by?: AuditContext): Promise<Agent | "moved"> {
    const result = (await this.#stub.addVersion(this.#tenantId, agentId, input, by)) as AgentResult<Agent>;
    return !result.ok && result.reason === "version_moved" ? "moved" : value(result);
  }

  async archive(agentId: string, now: number, by?: AuditContext): Promise<void> {
    value(await this.#stub.archive(this.#tenantId, agentId, now, by));
  }

  async listVersions(agentId: string, input: { limit: number; cursor: string | null }): Promise<Page<AgentVersion>> {
    return value((await this.#stub.listVersions(this.#tenantId, agentId, input)) as AgentResult<Page<AgentVersion>>);
  }

  async getVersion(agentId: string, version: number): Promise<AgentVersion> {
    return value((await this.#stub.getVersion(this.#tenantId, agentId, version)) as AgentResult<AgentVersion>);
  }

  async setAlias(
    agentId: string,
    alias: string,
    version: number,
    now: number,
    by?: AuditContext,
    canary: CanarySpec | null = null,
  ): Promise<Agent> {
    return value((await this.#stub.setAlias(this.#tenantId, agentId, alias, version, now, by, canary)) as AgentResult<Agent>);
  }

  async promoteCanary(
    agentId: string,
    alias: string,
    now: number,
    by?: AuditContext,
    expectedVersion: number | null = null,
  ): Promise<Agent> {
    return value((await this.#stub.promoteCanary(this.#tenantId, agentId, alias, now, by, expectedVersion)) as AgentResult<Agent>);
  }

  async deleteAlias(agentId: string, alias: string, now: number, by?: AuditContext): Promise<void> {
    value(await this.#stub.deleteAlias(this.#tenantId, agentId, alias, now, by));
  }

  /** The version a new session runs and its definition, in one call to the store; a cached version's definition is not sent again. */
  async resolve(
    ref: AgentRef,
  ): Promise<{ agentId: string; version: number; definition: AgentDefinition; canary?: ResolvedAgent["canary"] }> {
    const held = VERSIONS.held(this.#tenantId, ref.agentId);
    const resolved = value((await this.#stub.resolve(this.#tenantId, ref.agentId, ref.selector, held)) as AgentResult<ResolvedAgent>);
    let definition = resolved.definition;
    if (definition) VERSIONS.put(this.#tenantId, resolved.agent_id, resolved.version, definition);
    else definition = VERSIONS.get(this.#tenantId, resolved.agent_id, resolved.version);
    if (!definition) {
      // Evicted between the two reads: ask once more, holding nothing.
      const again = value(
        (await this.#stub.resolve(this.#tenantId, ref.agentId, { kind: "version", version: resolved.version }, [])) as AgentResult<{
          agent_id: string;
          version: number;
          definition?: AgentDefinition;
        }>,
      );
      if (!again.definition) throw new Error("the agent store left out a definition not held");
      definition = again.definition;
      VERSIONS.put(this.#tenantId, again.agent_id, again.version, definition);
    }
    return { agentId: resolved.agent_id, version: resolved.version, definition, ...(resolved.canary ? { canary: resolved.canary } : {}) };
  }
}
