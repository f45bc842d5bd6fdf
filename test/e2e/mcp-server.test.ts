/**
 * The platform as an MCP server, end to end against `wrangler dev`, with the official SDK's
 * `Client` and `StreamableHTTPClientTransport` unchanged: the tenant's live agents listed as
 * tools, calls with and without an output schema, progress, cancellation, and a call whose
 * session stops to wait for approval.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpEndpoint } from "@agent-platform/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelStep } from "../support/mock-protocol";
import { say } from "./support/scenario";
import { type SharedStack, sharedStack, uniqueName } from "./support/stack";
import { tokenMinter } from "./support/tokens";
import { waitFor } from "./support/wait";

const CITY_SCHEMA = { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false };

function callTool(id: string, name: string, input: Record<string, unknown> = {}): ModelStep {
  return { reply: { content: [{ type: "tool_use", id, name, input }] } };
}

describe("MCP server", () => {
  let stack: SharedStack;
  let token: string;
  let client: Client;
  const names = {
    plain: uniqueName("plain"),
    typed: uniqueName("typed"),
    asker: uniqueName("asker"),
    stuck: uniqueName("stuck"),
    gone: uniqueName("gone"),
  };
  const models: Record<string, ReturnType<SharedStack["mock"]["model"]>> = {};

  async function api(method: string, path: string, body?: unknown, credential = token) {
    const res = await fetch(`${stack.platform.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${credential}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null };
  }

  beforeAll(async () => {
    stack = await sharedStack();
    const mint = await tokenMinter(stack.platform.signingKey);
    const tenant = uniqueName("tenant");
    token = await mint({ tenantId: tenant, subject: "mcp-user", scopes: ["sessions:read", "sessions:write", "agents:write"] });
    const definitions: Record<string, Record<string, unknown>> = {
      plain: { tools: [{ type: "builtin", name: "get_time" }] },
      typed: { output_schema: CITY_SCHEMA },
      asker: { tools: [{ type: "builtin", name: "get_time", requires_approval: true }] },
      stuck: {},
      gone: {},
    };
    for (const [kind, definition] of Object.entries(definitions)) {
      models[kind] = stack.mock.model(uniqueName("model"));
      const created = await api("POST", "/v1/agents", {
        name: names[kind as keyof typeof names],
        description: `the ${kind} agent`,
        model: models[kind]!.key,
        ...definition,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      if (kind === "gone") expect((await api("DELETE", `/v1/agents/${created.body!.id as string}`)).status).toBe(204);
    }
    client = new Client({ name: "e2e", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(mcpEndpoint(stack.platform.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close();
  });

  it("lists each live agent as a tool, with its output schema where it has one", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual([names.plain, names.typed, names.asker, names.stuck].sort());
    expect(byName.get(names.plain)).toMatchObject({
      description: "the plain agent",
      inputSchema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
    });
    expect(byName.get(names.plain)?.outputSchema).toBeUndefined();
    expect(byName.get(names.typed)?.outputSchema).toEqual(CITY_SCHEMA);
  });

  it("runs a call to its end with progress, as an ordinary session", async () => {
    await models.plain!.script(callTool("toolu_p", "get_time"), say("It is noon."));
    const progress: string[] = [];
    const result = await client.callTool({ name: names.plain, arguments: { input: "what time is it?" } }, undefined, {
      onprogress: (note) => void progress.push(note.message ?? ""),
    });
    expect(result).toMatchObject({ content: [{ type: "text", text: "It is noon." }] });
    expect(result.isError).toBeFalsy();
    expect(progress.length).toBeGreaterThanOrEqual(2);
    const sessionId = (result._meta as { session_id: string }).session_id;
    expect((await api("GET", `/v1/sessions/${sessionId}`)).body).toMatchObject({ status: "done", created_by: "mcp-user" });
  });

  it("answers with structuredContent for an agent with an output schema", async () => {
    await models.typed!.script(callTool("toolu_o", "respond", { city: "Lyon" }));
    const result = await client.callTool({ name: names.typed, arguments: { input: "where?" } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ city: "Lyon" });
  });

  it("names the session and the call when the session waits for approval", async () => {
    await models.asker!.script(callTool("toolu_w", "get_time"), say("Approved."));
    const result = await client.callTool({ name: names.asker, arguments: { input: "time, please" } });
    expect(result.isError).toBe(true);
    const meta = result._meta as { session_id: string; status: string; waiting_for: { tool_call_id: string; name: string }[] };
    expect(meta).toMatchObject({ status: "waiting_approval", waiting_for: [{ tool_call_id: "toolu_w", name: "get_time" }] });
    expect(JSON.stringify(result.content)).toContain(meta.session_id);
    expect((await api("POST", `/v1/sessions/${meta.session_id}/tool-calls/toolu_w/approve`)).status).toBe(200);
    await waitFor(async () => ((await api("GET", `/v1/sessions/${meta.session_id}`)).body?.status === "done" ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 100,
      what: "the approved session's end",
    });
  });

  it("cancels the call's session on notifications/cancelled", async () => {
    await models.stuck!.script({ hang: true });
    const abort = new AbortController();
    const call = client.callTool({ name: names.stuck, arguments: { input: "wait forever" } }, undefined, { signal: abort.signal });
    await waitFor(async () => ((await models.stuck!.requests()).length > 0 ? true : undefined), {
      timeoutMs: 15_000,
      intervalMs: 50,
      what: "the stuck model call",
    });
    abort.abort("changed my mind");
    await expect(call).rejects.toThrow();
    const cancelled = await waitFor(
      async () => {
        const listed = (await api("GET", "/v1/sessions?status=cancelled")).body as { data: { id: string; agent_id?: string }[] };
        return listed.data.length > 0 ? listed.data : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 100, what: "the cancelled session" },
    );
    expect(cancelled).toHaveLength(1);
  });

  it("answers bad JSON-RPC with JSON-RPC errors and refuses a credential without sessions:write", async () => {
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" };
    const garbled = await fetch(`${stack.platform.url}/v1/mcp`, { method: "POST", headers, body: "{" });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } });
    const notRpc = await fetch(`${stack.platform.url}/v1/mcp`, { method: "POST", headers, body: JSON.stringify({ hello: "world" }) });
    expect(notRpc.status).toBeLessThan(500);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
    const reader = await tokenMinter(stack.platform.signingKey).then((mint) =>
      mint({ tenantId: uniqueName("tenant"), subject: "r", scopes: ["sessions:read"] }),
    );
    const refused = await fetch(`${stack.platform.url}/v1/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${reader}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(refused.status).toBe(403);
  });
});
