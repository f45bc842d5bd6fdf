/**
 * What a tenant's agent store answers over RPC: the interface its namespace is typed by
 * (src/env.ts). A tenant that never created an agent is answered as empty, and such a lookup
 * writes nothing. Definitions cross this boundary in clear (MCP header values included): the
 * gateway masks them in every answer it gives.
 */
import type { StorageFootprint } from "../storage/object-storage";
import type { AuditContext } from "../audit/types";
import type {
  Agent,
  AgentListInput,
  AgentPage,
  AgentResult,
  AgentVersion,
  NewAgent,
  NewVersion,
  ResolvedAgent,
  VersionSelector,
} from "./types";
import type { Page } from "../session-config/types";
import type { EvalOp, EvalOps } from "../evals/types";
import type { CanarySpec } from "./canary";
import type { CountResult } from "./canary-ops";
import type { CanaryRunFacts } from "./canary-scoring";

export interface AgentStoreRpc {
  /** The tenant was deleted: everything this object stored goes; harmless when done already. */
  purge(tenantId: string): Promise<void>;
  /** What this object's storage holds; reads only. */
  footprint(): Promise<StorageFootprint>;
  create(tenantId: string, input: NewAgent, by?: AuditContext): Promise<AgentResult<Agent>>;
  get(tenantId: string, agentId: string): Promise<AgentResult<Agent>>;
  list(tenantId: string, input: AgentListInput): Promise<AgentPage>;
  /** A new version from `basedOn`; the same version when the definition is unchanged. Refused for an archived agent. */
  addVersion(tenantId: string, agentId: string, input: NewVersion, by?: AuditContext): Promise<AgentResult<Agent>>;
  /** Archives (idempotent): no session may start from it any more. */
  archive(tenantId: string, agentId: string, now: number, by?: AuditContext): Promise<AgentResult<null>>;
  listVersions(
    tenantId: string,
    agentId: string,
    input: { limit: number; cursor: string | null },
  ): Promise<AgentResult<Page<AgentVersion>>>;
  getVersion(tenantId: string, agentId: string, version: number): Promise<AgentResult<AgentVersion>>;
  /** Points the alias at `version`; with `canary`, a second version takes a share of its sessions; without, any canary goes. */
  setAlias(
    tenantId: string,
    agentId: string,
    alias: string,
    version: number,
    now: number,
    by?: AuditContext,
    canary?: CanarySpec | null,
  ): Promise<AgentResult<Agent>>;
  /** The alias moves to its canary's version and the canary goes; `no_canary` when it carries none, `canary_changed` when it is not of `expectedVersion`. */
  promoteCanary(
    tenantId: string,
    agentId: string,
    alias: string,
    now: number,
    by?: AuditContext,
    expectedVersion?: number | null,
  ): Promise<AgentResult<Agent>>;
  /** A canary session's run ended: scored, counted once, and the canary rolled back at once when its rule is crossed. */
  recordCanaryRun(tenantId: string, agentId: string, alias: string, version: number, facts: CanaryRunFacts): Promise<CountResult>;
  deleteAlias(tenantId: string, agentId: string, alias: string, now: number, by?: AuditContext): Promise<AgentResult<null>>;
  /**
   * The version a new session runs, read fresh (aliases move, agents are archived). `held`: the
   * versions the caller has cached, whose definitions are left out of the answer. An alias with a
   * canary answers the canary's version for a selector whose `bucket` is below its percent.
   */
  resolve(tenantId: string, agentId: string, selector: VersionSelector, held: readonly number[]): Promise<AgentResult<ResolvedAgent>>;
  /** The tenant's datasets and eval runs (src/evals/): `op` names the operation, `input` its arguments. */
  evals<K extends EvalOp>(tenantId: string, op: K, input: EvalOps[K]["input"], by?: AuditContext): Promise<EvalOps[K]["output"]>;
}

/** The binding whose stubs offer this interface (src/env.ts). */
declare module "../env" {
  interface ObjectRpcs {
    AGENT_STORE: AgentStoreRpc;
  }
}
