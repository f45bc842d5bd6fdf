/**
 * Agents: a tenant's named, versioned session configurations. A version is immutable; an alias
 * names a version and moves; archival stops new sessions only. Shapes shared by the store, its
 * RPC interface and the gateway.
 */
import type { AgentPin, Page } from "../session-config/types";
import type { CanaryState } from "./canary";

export type { AgentPin };

/** A version's definition as stored: a valid `POST /v1/agents` body (see definition.ts). */
export type AgentDefinition = { name: string; description?: string } & Record<string, unknown>;

export interface Agent {
  id: string;
  name: string;
  description: string | null;
  /** The latest version. */
  version: number;
  aliases: Record<string, number>;
  /** Each alias that carries a canary: its version, share, rule and live counts. */
  canaries: Record<string, CanaryState>;
  definition: AgentDefinition;
  archived: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface AgentVersion {
  agent_id: string;
  version: number;
  definition: AgentDefinition;
  created_by: string;
  created_at: string;
}

/** Which version a session asks for: the latest, a number, or an alias. */
export type VersionSelector = { kind: "latest" } | { kind: "version"; version: number } | { kind: "alias"; alias: string; bucket?: number };

/** What a session's creation learns of its agent: the version chosen now, and its definition unless the caller holds it. */
export interface ResolvedAgent {
  agent_id: string;
  version: number;
  /** Absent when the caller said it already holds this version (versions never change). */
  definition?: AgentDefinition;
  /** Set when the alias named carried a canary: the alias, and whether this session took the canary's arm. */
  canary?: { alias: string; arm: boolean };
}

/**
 * Why the store refused: machine reasons only; the gateway turns each into its problem in one
 * switch (client.ts).
 */
export type AgentFailure =
  | { reason: "agent_not_found" }
  | { reason: "version_not_found"; version: number }
  | { reason: "alias_not_found"; alias: string }
  | { reason: "archived" }
  | { reason: "name_taken"; name: string }
  /** Another version was added since the caller read the one it changed. */
  | { reason: "version_moved"; latest: number }
  | { reason: "limit_reached"; what: "agents" | "versions" | "aliases"; max: number }
  /** A canary the alias cannot take: `path` is the request body's field. */
  | { reason: "canary_invalid"; path: string; message: string }
  /** Promoting an alias that carries no canary (none was set, or it was rolled back). */
  | { reason: "no_canary"; alias: string }
  /** Promoting with an expected version the live canary does not have. */
  | { reason: "canary_changed"; alias: string; version: number; expected: number };

export type AgentResult<T> = { ok: true; value: T } | ({ ok: false } & AgentFailure);

export interface NewAgent {
  definition: AgentDefinition;
  createdBy: string;
  now: number;
}

export interface NewVersion {
  definition: AgentDefinition;
  /** The version the change was made to; refused (`version_moved`) when another came since. */
  basedOn: number;
  createdBy: string;
  now: number;
}

export interface AgentListInput {
  name: string | null;
  includeArchived: boolean;
  limit: number;
  cursor: string | null;
}

export type AgentPage = Page<Agent>;
