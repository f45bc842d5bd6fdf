/** The fetch the MCP transport is given: every hop guarded, pinned to the server's origin, capped. */
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { McpConnection } from "../../../../src/sessions/object/tools/mcp/connection";
import { mcpFetch, McpRefusal } from "../../../../src/sessions/object/tools/mcp/mcp-fetch";
import type { McpToolSpec } from "../../../../src/session-config/types";

const SERVER = new URL("https://mcp.example.com/mcp");

function recordingFetch(answer: (url: string, init: RequestInit) => Response) {
  const seen: { url: string; redirect: RequestInit["redirect"]; method: string | undefined }[] = [];
  const impl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    seen.push({ url, redirect: init?.redirect, method: init?.method });
    return answer(url, init ?? {});
  }) as typeof fetch;
  return { impl, seen };
}

describe("mcpFetch", () => {
  it("never lets the runtime follow a redirect, and refuses other origins and private addresses", async () => {
    const { impl, seen } = recordingFetch(() => new Response("{}", { status: 200 }));
    const guarded = mcpFetch({ server: SERVER, allowPrivateUrls: false, allowedOrigins: null, fetchImpl: impl });
    await guarded(SERVER.href, { method: "POST", body: "{}" });
    expect(seen).toEqual([{ url: SERVER.href, redirect: "manual", method: "POST" }]);
    await expect(guarded("https://other.example.com/mcp", { method: "POST" })).rejects.toBeInstanceOf(McpRefusal);
    await expect(guarded("https://169.254.169.254/latest", { method: "POST" })).rejects.toThrow(/Not an allowed MCP server URL/);
    await expect(guarded("http://mcp.example.com/mcp", { method: "POST" })).rejects.toThrow(/https/);
    expect(seen).toHaveLength(1);
  });

  it("refuses an origin the tenant has not allowed", async () => {
    const { impl } = recordingFetch(() => new Response("{}"));
    const guarded = mcpFetch({ server: SERVER, allowPrivateUrls: false, allowedOrigins: ["https://hooks.example.com"], fetchImpl: impl });
    await expect(guarded(SERVER.href, { method: "POST" })).rejects.toThrow(/webhook_origins/);
  });

  it("answers a GET itself with 405: no stream is held open for server-initiated messages", async () => {
    const { impl, seen } = recordingFetch(() => new Response("{}"));
    const response = await mcpFetch({ server: SERVER, allowPrivateUrls: false, allowedOrigins: null, fetchImpl: impl })(SERVER.href, {
      method: "GET",
    });
    expect(response.status).toBe(405);
    expect(seen).toEqual([]);
  });

  it("cuts off an answer larger than its cap", async () => {
    const { impl } = recordingFetch(() => new Response("x".repeat(5_000)));
    const response = await mcpFetch({
      server: SERVER,
      allowPrivateUrls: false,
      allowedOrigins: null,
      fetchImpl: impl,
      maxResponseBytes: 1_000,
    })(SERVER.href, { method: "POST" });
    await expect(response.text()).rejects.toThrow(/larger than 1000 bytes/);
  });
});

describe("redirects through the SDK's transport", () => {
  const spec = (url: string): McpToolSpec => ({ type: "mcp", name: "docs", url });

  it("does not follow a redirect to another origin", async () => {
    const { impl, seen } = recordingFetch(() => new Response(null, { status: 307, headers: { location: "https://evil.example.net/mcp" } }));
    const open = McpConnection.open(
      { spec: spec(SERVER.href), url: SERVER, allowPrivateUrls: false, allowedOrigins: null, fetchImpl: impl },
      new AbortController().signal,
    );
    await expect(open).rejects.toThrow(/evil\.example\.net.*not followed|not followed/);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.url === SERVER.href && s.redirect === "manual")).toBe(true);
  });

  it("follows a redirect within the origin, each hop through the guard", async () => {
    const base = new URL(`${inject("mcpUrl")}/old`);
    const target = `${inject("mcpUrl")}/mcp/redirected`;
    const hops: string[] = [];
    const impl = (async (input: RequestInfo | URL, init?: RequestInit) => {
      hops.push(String(input));
      if (String(input) === base.href) return new Response(null, { status: 307, headers: { location: target } });
      return fetch(input, init);
    }) as typeof fetch;
    const connection = await McpConnection.open(
      { spec: spec(base.href), url: base, allowPrivateUrls: true, allowedOrigins: null, fetchImpl: impl },
      new AbortController().signal,
    );
    const tools = await connection.listTools(new AbortController().signal);
    await connection.close();
    expect(tools.map((tool) => tool.name)).toContain("echo");
    expect(hops.slice(0, 2)).toEqual([base.href, target]);
  });
});
