/**
 * The ways to reach one agent, one per protocol, each with a snippet to copy: the addresses of
 * this deployment, the credential left as `$TOKEN` (a snippet never holds the console's own). Pure.
 * docs/protocols.md compares the protocols.
 */

export interface Endpoint {
  /** The protocol, as a heading. */
  protocol: string;
  /** What it is for, in a line. */
  purpose: string;
  /** The requests it takes, `METHOD URL` each. */
  routes: string[];
  /** What to paste: a shell line or a few lines of TypeScript or JSON. */
  snippet: string;
  language: "sh" | "ts" | "json";
}

const quote = (value: string) => JSON.stringify(value);

export function agentEndpoints(baseUrl: string, agent: { id: string; name: string }): Endpoint[] {
  const base = baseUrl.replace(/\/+$/, "");
  const agentUrl = `${base}/v1/agents/${encodeURIComponent(agent.id)}`;
  const a2a = `${agentUrl}/a2a`;
  return [
    {
      protocol: "REST (OpenAPI)",
      purpose: "A backend starts a session of the agent and follows it; every other session route applies.",
      routes: [`POST ${base}/v1/sessions`, `GET ${base}/v1/sessions/{id}/events`],
      snippet:
        `curl -s ${base}/v1/sessions -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n` +
        `  -d '{"agent": ${quote(agent.id)}, "input": "Hello"}'`,
      language: "sh",
    },
    {
      protocol: "AI SDK chat",
      purpose: "A chat page with useChat: the chat id names the caller's session of the agent.",
      routes: [`POST ${agentUrl}/chat`, `GET ${agentUrl}/chat/{id}/stream`, `GET ${agentUrl}/chat/{id}/messages`],
      snippet:
        `const transport = new DefaultChatTransport({\n` +
        `  api: ${quote(`${agentUrl}/chat`)},\n` +
        "  headers: { Authorization: `Bearer ${token}` },\n" +
        `});`,
      language: "ts",
    },
    {
      protocol: "MCP",
      purpose: `An MCP host calls the agent as the tool ${quote(agent.name)} of the tenant's MCP server.`,
      routes: [`POST ${base}/v1/mcp`],
      snippet: JSON.stringify(
        { mcpServers: { agents: { type: "http", url: `${base}/v1/mcp`, headers: { Authorization: "Bearer $TOKEN" } } } },
        null,
        2,
      ),
      language: "json",
    },
    {
      protocol: "A2A",
      purpose: "Another agent reads the card and sends messages; a context id names the caller's session, a task is a run.",
      routes: [`GET ${a2a}/.well-known/agent-card.json`, `POST ${a2a}`],
      snippet:
        `curl -s ${a2a} -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\\n` +
        `  -d '{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "Hello"}]}}}'`,
      language: "sh",
    },
    {
      protocol: "AG-UI",
      purpose: "A front end with @ag-ui/client's HttpAgent: the thread id names the caller's session, its tools are client tools.",
      routes: [`POST ${agentUrl}/ag-ui`],
      snippet:
        `const agent = new HttpAgent({\n` +
        `  url: ${quote(`${agentUrl}/ag-ui`)},\n` +
        "  headers: { Authorization: `Bearer ${token}` },\n" +
        `});`,
      language: "ts",
    },
  ];
}
