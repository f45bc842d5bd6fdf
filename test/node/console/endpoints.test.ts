/** The agent page's endpoints: one per protocol, at this deployment's addresses, with snippets that parse and hold no credential. */
import { describe, expect, it } from "vitest";
import { agentEndpoints } from "../../../console/src/endpoints";

const endpoints = agentEndpoints("https://agents.example.com/", { id: "agt_abc123", name: "concierge" });
const of = (protocol: string) => endpoints.find((endpoint) => endpoint.protocol === protocol)!;

describe("agentEndpoints", () => {
  it("lists the five protocols, each at this deployment's address", () => {
    expect(endpoints.map((endpoint) => endpoint.protocol)).toEqual(["REST (OpenAPI)", "AI SDK chat", "MCP", "A2A", "AG-UI"]);
    expect(of("AI SDK chat").routes[0]).toBe("POST https://agents.example.com/v1/agents/agt_abc123/chat");
    expect(of("A2A").routes).toEqual([
      "GET https://agents.example.com/v1/agents/agt_abc123/a2a/.well-known/agent-card.json",
      "POST https://agents.example.com/v1/agents/agt_abc123/a2a",
    ]);
    expect(of("AG-UI").routes).toEqual(["POST https://agents.example.com/v1/agents/agt_abc123/ag-ui"]);
    expect(of("AG-UI").snippet).toContain('url: "https://agents.example.com/v1/agents/agt_abc123/ag-ui"');
    expect(of("MCP").purpose).toContain('"concierge"');
  });

  it("gives snippets whose JSON parses, and never a credential but $TOKEN or the page's own token variable", () => {
    expect(JSON.parse(of("MCP").snippet)).toEqual({
      mcpServers: { agents: { type: "http", url: "https://agents.example.com/v1/mcp", headers: { Authorization: "Bearer $TOKEN" } } },
    });
    for (const protocol of ["REST (OpenAPI)", "A2A"]) {
      const body = /-d '([^']*)'/.exec(of(protocol).snippet)?.[1];
      expect(() => JSON.parse(body!), protocol).not.toThrow();
      expect(of(protocol).snippet).toContain('"Authorization: Bearer $TOKEN"');
    }
    expect(JSON.parse(/-d '([^']*)'/.exec(of("REST (OpenAPI)").snippet)![1]!)).toEqual({ agent: "agt_abc123", input: "Hello" });
    for (const endpoint of endpoints) expect(endpoint.snippet).not.toMatch(/Bearer (?!\$TOKEN|\$\{token\})/);
  });
});
