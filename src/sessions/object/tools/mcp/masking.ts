/**
 * MCP `headers` carry credentials: they go to the server and nowhere else. Every response that
 * shows a session's tools (a session, a schedule's session body) shows each header's name with
 * its value masked, the idempotency store keeps answers masked the same way, and text that comes
 * back from a server (an error, an output) has any header value it echoes replaced. Pure.
 */
import type { ToolSpec } from "../../../types";

export const MASKED_VALUE = "********";
/** Shorter values are not searched for in text: they would match ordinary words. */
const MIN_REDACTED_CHARS = 6;

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
  for (const [key, item] of Object.entries(record)) Object.defineProperty(out, key, { value: maskMcpHeadersDeep(item), enumerable: true, writable: true, configurable: true });
  if (record.type === "mcp" && isStringRecord(record.headers)) out.headers = maskHeaders(record.headers);
  return out;
}

/** `text` with every occurrence of a header value replaced by the mask. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_REDACTED_CHARS) out = out.split(secret).join(MASKED_VALUE);
  return out;
}

/** The values to redact for one server: each header value, and its parts (a `Bearer <token>` echoes the token alone). */
export function headerSecrets(headers: Record<string, string> | undefined): string[] {
  if (!headers) return [];
  const values = Object.values(headers);
  return [...new Set([...values, ...values.flatMap((value) => value.split(/\s+/))])].sort((a, b) => b.length - a.length);
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
