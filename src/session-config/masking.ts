/**
 * MCP `headers` carry credentials: they go to the server and nowhere else. Every response that
 * shows a session's tools (a session, a schedule's session body) shows each header's name with
 * its value masked, the idempotency store keeps answers masked the same way, and everything that
 * comes back from a server (an output, an error, a listed tool's description and schema) passes
 * through the server's masker (`serverMasker`), which finds the header values in every form the
 * shared masker knows (src/shared/secret-mask.ts). Building a masker also enters its values in
 * the set every log line is masked with.
 */
import { MASKED_VALUE, maskerOf, type SecretMasker } from "../shared/secret-mask";
import { decodeBase64 } from "../shared/base64";
import type { McpToolSpec, ToolSpec } from "./types";

export { MASKED_VALUE };

export function maskToolSpecs(tools: readonly ToolSpec[]): ToolSpec[] {
  return tools.map((tool) => (tool.type === "mcp" && tool.headers ? { ...tool, headers: maskHeaders(tool.headers) } : tool));
}

function maskHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, MASKED_VALUE]));
}

/**
 * Masks the headers of every MCP tool found anywhere in a JSON value (a session, a page of
 * them, anything a route answers), without knowing its shape: the last guard before an answer
 * is kept for replay.
 */
export function maskMcpHeadersDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskMcpHeadersDeep);
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a key named `__proto__` stays an own property, as in the answer.
  for (const [key, item] of Object.entries(record))
    Object.defineProperty(out, key, { value: maskMcpHeadersDeep(item), enumerable: true, writable: true, configurable: true });
  if (record.type === "mcp" && isStringRecord(record.headers)) out.headers = maskHeaders(record.headers);
  return out;
}

/** The masker of one server's header values. */
export function serverMasker(spec: Pick<McpToolSpec, "headers">): SecretMasker {
  return maskerOf(headerSecrets(spec.headers));
}

/** The masker of every MCP server of a session: for text that may quote any of them. */
export function toolsMasker(tools: readonly ToolSpec[]): SecretMasker {
  return maskerOf(tools.flatMap((tool) => (tool.type === "mcp" ? headerSecrets(tool.headers) : [])));
}

/** An authentication scheme and its credentials (RFC 9110 §11.4): `Bearer <token>`, `Basic <base64>`. */
const SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s+(\S.*)$/s;

/**
 * The values to mask for one server: each header value; for `<scheme> <credentials>`, the
 * credentials alone (a server echoes the token without "Bearer"), never the scheme word; for
 * Basic, the decoded `user:password` and the password alone.
 */
export function headerSecrets(headers: Record<string, string> | undefined): string[] {
  if (!headers) return [];
  const secrets: string[] = [];
  for (const value of Object.values(headers)) {
    const trimmed = value.trim();
    secrets.push(trimmed);
    const scheme = SCHEME.exec(trimmed);
    if (!scheme) continue;
    const credentials = scheme[2]!.trim();
    secrets.push(credentials);
    if (scheme[1]!.toLowerCase() !== "basic") continue;
    const decoded = decodeBase64(credentials);
    if (!decoded) continue;
    const pair = new TextDecoder().decode(decoded);
    const colon = pair.indexOf(":");
    if (colon < 0) continue;
    secrets.push(pair, pair.slice(colon + 1));
  }
  return [...new Set(secrets)];
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
