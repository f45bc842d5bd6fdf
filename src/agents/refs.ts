/**
 * Agent ids, names, aliases and the reference a session body gives (`agt_…`, `agt_…@7`,
 * `agt_…@production`). Pure. An alias is never all digits, so `@7` always means version 7.
 */
import { base64url } from "../shared/base64";
import type { VersionSelector } from "./types";
import { AGENT_REF_PATTERN, MAX_AGENT_REF_CHARS, MAX_ALIAS_CHARS } from "../session-config/agent-ref";

export { AGENT_REF_PATTERN, MAX_AGENT_REF_CHARS, MAX_ALIAS_CHARS };

export const AGENT_ID_PREFIX = "agt_";
/** 18 random bytes, as for sessions: ids cannot be guessed. */
const AGENT_ID_RANDOM_BYTES = 18;
export const AGENT_ID_PATTERN = /^agt_[A-Za-z0-9_-]{20,60}$/;
export const MAX_AGENT_NAME_CHARS = 64;
export const AGENT_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const ALIAS_PATTERN = /^(?![0-9]+$)[a-z0-9_-]{1,32}$/;
/** Versions are counted from 1; a tenant's agent never reaches this many. */
export const MAX_VERSION = 999_999_999;

export function newAgentId(): string {
  return AGENT_ID_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(AGENT_ID_RANDOM_BYTES)));
}

export function isAgentId(value: string): boolean {
  return AGENT_ID_PATTERN.test(value);
}

export function isAlias(value: string): boolean {
  return ALIAS_PATTERN.test(value);
}

export interface AgentRef {
  agentId: string;
  selector: VersionSelector;
}

/** The parts of a reference, or null when it is not one. */
export function parseAgentRef(text: string): AgentRef | null {
  if (text.length > MAX_AGENT_REF_CHARS || !AGENT_REF_PATTERN.test(text)) return null;
  const at = text.indexOf("@");
  if (at < 0) return { agentId: text, selector: { kind: "latest" } };
  const agentId = text.slice(0, at);
  const rest = text.slice(at + 1);
  return /^[0-9]+$/.test(rest)
    ? { agentId, selector: { kind: "version", version: Number(rest) } }
    : { agentId, selector: { kind: "alias", alias: rest } };
}
