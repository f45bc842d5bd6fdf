/**
 * The agent store's bounds, and the checks of what its RPC callers pass it that the tables rely
 * on (the gateway validated the bodies in full).
 */
import { AGENT_NAME_PATTERN, ALIAS_PATTERN } from "./refs";
import type { AgentDefinition } from "./types";

/** Agents a tenant may hold, archived ones included (archival keeps a version readable for the sessions that ran it). */
export const MAX_AGENTS_PER_TENANT = 1_000;
/** Versions one agent may have; each is at most a request body. */
export const MAX_VERSIONS_PER_AGENT = 1_000;
export const MAX_ALIASES_PER_AGENT = 32;
/** Cached versions a caller may say it holds, per call. */
export const MAX_HELD_VERSIONS = 64;

/** The gateway validated the definition in full; here only what the tables rely on. */
export function requireDefinition(value: unknown): AgentDefinition {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new TypeError("definition must be an object");
  const name = (value as { name?: unknown }).name;
  if (typeof name !== "string" || !AGENT_NAME_PATTERN.test(name)) throw new TypeError("definition.name is not an agent name");
  return value as AgentDefinition;
}

export function requireAlias(value: unknown): string {
  if (typeof value !== "string" || !ALIAS_PATTERN.test(value)) throw new TypeError("alias is not an alias name");
  return value;
}
