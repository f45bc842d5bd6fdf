/**
 * Where stock clients plug in: the AI SDK's `DefaultChatTransport` (`api`) and an MCP client's
 * Streamable HTTP transport. Both take the platform's base URL as the client does.
 */

function trimmed(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "");
}

/** `api` for `DefaultChatTransport`: its reconnect URL (`…/chat/{id}/stream`) is derived from it by the transport. */
export function chatEndpoint(baseUrl: string, agentId: string): string {
  return `${trimmed(baseUrl)}/v1/agents/${encodeURIComponent(agentId)}/chat`;
}

/** The MCP server's URL, for `StreamableHTTPClientTransport` or a host's configuration. */
export function mcpEndpoint(baseUrl: string): URL {
  return new URL(`${trimmed(baseUrl)}/v1/mcp`);
}
