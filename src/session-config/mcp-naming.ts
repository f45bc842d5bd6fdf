/**
 * The names under which an MCP server's tools are offered to the model: `<server>__<tool>`,
 * within the providers' rule (`^[a-zA-Z0-9_-]{1,64}$`), and never the same as another tool's.
 * Pure.
 *
 * Why the server name has its own rule: with no `__` inside it and no `_` at either end, the
 * first `__` of an offered name is where the server's name ends, so two servers can never offer
 * the same name. A tool name that does not fit as it is (characters outside the rule, too long,
 * or already taken) keeps what fits and ends with a hash of the full name, so it stays distinct.
 */
import { TOOL_NAME_PATTERN } from "./tool-name";

/** Leaves at least 30 characters of the 64 for the tool's own name. */
export const MAX_MCP_SERVER_NAME_CHARS = 32;
export const MCP_SERVER_NAME_PATTERN = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
export const MCP_NAME_SEPARATOR = "__";
const MAX_OFFERED_NAME_CHARS = 64;
const HASH_SUFFIX_CHARS = 8;

export function isMcpServerName(name: string): boolean {
  return name.length <= MAX_MCP_SERVER_NAME_CHARS && MCP_SERVER_NAME_PATTERN.test(name);
}

/** The prefix every tool of `server` is offered under; no other tool of the session may start with it. */
export function mcpPrefix(server: string): string {
  return `${server}${MCP_NAME_SEPARATOR}`;
}

/**
 * The name `remote` (the tool's name on the server) is offered under, given the names already
 * taken in the run; null when even the hashed form is taken (two names of one server hashing
 * alike), which the caller reports.
 */
export function offeredToolName(server: string, remote: string, taken: ReadonlySet<string>): string | null {
  const prefix = mcpPrefix(server);
  const room = MAX_OFFERED_NAME_CHARS - prefix.length;
  const plain = `${prefix}${remote}`;
  if (remote.length > 0 && remote.length <= room && TOOL_NAME_PATTERN.test(plain) && !taken.has(plain)) return plain;
  const cleaned = remote.replace(/[^A-Za-z0-9_-]/g, "_");
  const suffix = `_${hash(remote)}`;
  const hashed = `${prefix}${cleaned.slice(0, room - suffix.length)}${suffix}`;
  return taken.has(hashed) ? null : hashed;
}

/** FNV-1a over the UTF-16 code units, as 8 base-36 characters: stable across runs and versions. */
function hash(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ code, 0x5bd1e995) >>> 0;
  }
  return ((h1 % 1_679_616).toString(36).padStart(4, "0") + (h2 % 1_679_616).toString(36).padStart(4, "0")).slice(0, HASH_SUFFIX_CHARS);
}
