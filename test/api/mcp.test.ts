/**
 * `POST /v1/mcp` in workerd, spoken as raw JSON-RPC: initialize hands out an MCP session id,
 * tools/list offers the tenant's live agents only, and what is not JSON-RPC gets a JSON-RPC
 * error, never a 5xx.
 */
import { describe, expect, it } from "vitest";
import { call } from "../support/api";
import { author, createAgent } from "./agents/helpers";
import type { Caller } from "./sessions/helpers";

const ACCEPT = "application/json, text/event-stream";

async function rpc(who: Caller, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return call("/v1/mcp", {
    method: "POST",
    headers: { ...who.headers, "content-type": "application/json", accept: ACCEPT, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** The JSON-RPC message of a response: its JSON body, or the first `data:` of its event stream. */
async function message(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  if (res.headers.get("content-type")?.startsWith("text/event-stream")) {
    const data = text.split("\n").find((line) => line.startsWith("data: "));
    return JSON.parse(data!.slice(6)) as Record<string, unknown>;
  }
  return JSON.parse(text) as Record<string, unknown>;
}

describe("POST /v1/mcp", () => {
  it("initializes with an MCP session id and lists the tenant's live agents as tools", async () => {
    const who = await author();
    await createAgent(who, { name: "triage", description: "Sorts tickets" });
    const init = await rpc(who, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    });
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toMatch(/^mcp_[A-Za-z0-9_-]{22}$/);
    expect(await message(init)).toMatchObject({ id: 1, result: { capabilities: { tools: {} }, serverInfo: { name: "agent-platform" } } });

    const other = await author();
    await createAgent(other, { name: "someone-elses" });
    const listed = await message(await rpc(who, { jsonrpc: "2.0", id: 2, method: "tools/list" }));
    expect(listed).toMatchObject({
      id: 2,
      result: { tools: [{ name: "triage", description: "Sorts tickets", inputSchema: { type: "object", required: ["input"] } }] },
    });
  });

  it("answers what is not JSON-RPC with a JSON-RPC error, and an unknown tool with invalid params", async () => {
    const who = await author();
    const garbled = await rpc(who, "{");
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const shapeless = await rpc(who, { hello: 1 });
    expect(shapeless.status).toBe(400);
    expect(await shapeless.json()).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
    const unknown = await message(
      await rpc(who, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "nobody", arguments: { input: "hi" } } }),
    );
    expect(unknown).toMatchObject({ id: 3, error: { code: -32602 } });
    const noInput = await message(
      await rpc(who, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nobody", arguments: {} } }),
    );
    expect(noInput).toMatchObject({ id: 4, error: { code: -32602 } });
  });

  it("has no GET stream (405), as a stateless Streamable HTTP server may answer", async () => {
    const who = await author();
    expect((await call("/v1/mcp", { headers: { ...who.headers, accept: "text/event-stream" } })).status).toBe(405);
  });
});
