/**
 * Where stock clients plug in: the AI SDK's `DefaultChatTransport` (`api`) and an MCP client's
 * Streamable HTTP transport. Both take the platform's base URL as the client does. And a chat's
 * history, for `useChat({ messages })` after a reload.
 */
import type { PlatformClient } from "./client.ts";
import { expectData, PlatformError } from "./errors.ts";
import type { ChatUIMessage } from "./types.ts";

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

/**
 * The caller's chat with an agent as the AI SDK's `UIMessage`s, oldest first
 * (`GET /v1/agents/{agent_id}/chat/{id}/messages`). A chat never used (or not the caller's) is a
 * 404, answered as no messages. Name `ai`'s type to get it typed as `useChat` takes it:
 * `chatMessages<UIMessage>(client, agentId, chatId)`; the SDK does not depend on `ai`.
 */
export async function chatMessages<UI_MESSAGE = ChatUIMessage>(
  client: PlatformClient,
  agentId: string,
  chatId: string,
): Promise<UI_MESSAGE[]> {
  try {
    const found = await expectData(
      client.GET("/v1/agents/{agent_id}/chat/{id}/messages", { params: { path: { agent_id: agentId, id: chatId } } }),
    );
    return found.messages as UI_MESSAGE[];
  } catch (error) {
    if (error instanceof PlatformError && error.status === 404) return [];
    throw error;
  }
}
