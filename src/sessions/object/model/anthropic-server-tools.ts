/**
 * Anthropic's server tools on the wire: a session's provider tools as the Messages API declares
 * them (versioned types, the beta each needs), and the blocks and citations they answer with,
 * read as given. The platform never runs these tools; it keeps their blocks and sends them back.
 */
import type { Citation, ProviderBlock, ProviderToolSpec } from "../../../session-config/types";
import { isProviderBlock } from "../../../session-config/types";

/** The versioned tool type and the `anthropic-beta` flag (null: generally available) of each provider tool. */
const SERVER_TOOLS: Record<ProviderToolSpec["name"], { type: string; beta: string | null }> = {
  web_search: { type: "web_search_20250305", beta: null },
  web_fetch: { type: "web_fetch_20250910", beta: "web-fetch-2025-09-10" },
  code_execution: { type: "code_execution_20250825", beta: "code-execution-2025-08-25" },
};

/** A server tool as the API declares it: its versioned type, its name, and the options given (the schema bounds them). */
export type WireServerTool = { type: string; name: string } & Record<string, unknown>;

export function serverToolsOf(specs: readonly ProviderToolSpec[]): WireServerTool[] {
  return specs.map(({ type: _provider, name, ...options }) => ({ type: SERVER_TOOLS[name].type, name, ...options }));
}

/** The `anthropic-beta` header's value for these tools, or null when none needs one. */
export function betaHeader(specs: readonly ProviderToolSpec[]): string | null {
  const betas = [...new Set(specs.flatMap((spec) => SERVER_TOOLS[spec.name].beta ?? []))];
  return betas.length > 0 ? betas.join(",") : null;
}

/** A provider block of an answer, as given (a copy: the parsed event is not kept). */
export function providerBlockOf(block: Record<string, unknown>): ProviderBlock | null {
  return typeof block.type === "string" && isProviderBlock({ type: block.type }) ? ({ ...block } as ProviderBlock) : null;
}

/** The citations of a text block, as given: a list of objects each with a `type`; anything else is none. */
export function citationsOf(value: unknown): Citation[] | null {
  return Array.isArray(value) && value.every(isCitation) ? (value as Citation[]) : null;
}

export function isCitation(value: unknown): value is Citation {
  return typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string";
}

/** The provider tools' requests a usage report counts (`usage.server_tool_use`), where it gives them. */
export function serverToolUsage(usage: unknown): { web_search_requests?: number; web_fetch_requests?: number } {
  const counts = ((usage as { server_tool_use?: unknown } | null)?.server_tool_use ?? {}) as Record<string, unknown>;
  return {
    ...(isCount(counts.web_search_requests) ? { web_search_requests: counts.web_search_requests } : {}),
    ...(isCount(counts.web_fetch_requests) ? { web_fetch_requests: counts.web_fetch_requests } : {}),
  };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
