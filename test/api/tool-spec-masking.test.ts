/**
 * MCP header values never leave the platform: every operation whose answer (by the served OpenAPI
 * document) can hold a tool spec is called with an MCP tool carrying a header, and no raw value
 * may appear in its answer. A new operation that answers tool specs fails here until it is listed.
 */
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { call, callJson } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { type Caller, caller, createSession, post, toolUse, waitForStatus } from "./sessions/helpers";

const SECRET = "sk-mcp-secret-walk-0123456789";
const YEARLY = "0 0 1 1 *";

interface Document {
  paths: Record<string, Record<string, { operationId?: string; responses?: unknown }>>;
  webhooks: Record<string, unknown>;
  components: { schemas: Record<string, unknown> };
}

/** The schema names `value` reaches through `$ref`, transitively. */
function reachable(value: unknown, schemas: Record<string, unknown>, seen = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) reachable(item, schemas, seen);
  else if (value !== null && typeof value === "object") {
    const ref = (value as { $ref?: unknown }).$ref;
    if (typeof ref === "string") {
      const name = ref.split("/").pop()!;
      if (!seen.has(name)) {
        seen.add(name);
        reachable(schemas[name], schemas, seen);
      }
    }
    for (const item of Object.values(value)) reachable(item, schemas, seen);
  }
  return seen;
}

function mcpTool() {
  return { type: "mcp", name: "docs", url: `${inject("mcpUrl")}/mcp/${uniqueKey("mcp")}`, headers: { Authorization: `Bearer ${SECRET}` } };
}

/** A session with the MCP tool whose run waits on `tool` (called by the model as `toolu_w`). */
async function waitingOn(
  who: Caller,
  tool: Record<string, unknown>,
  status: "waiting_approval" | "waiting_tool_output" = "waiting_approval",
) {
  const model = mockModel(uniqueKey("model"));
  await model.script({ reply: { content: [toolUse("toolu_w", tool.name as string, {})] } }, { hang: true });
  const session = await createSession(who, { input: "go", model: model.key, tools: [mcpTool(), tool] });
  await waitForStatus(who, session.id, [status]);
  return session;
}

const APPROVED = { type: "builtin", name: "get_time", requires_approval: true };
const CLIENT = { type: "client", name: "ask_user", description: "Ask", input_schema: { type: "object", properties: {} } };

async function hanging(who: Caller) {
  const model = mockModel(uniqueKey("model"));
  await model.script({ hang: true }, { hang: true });
  const session = await createSession(who, { input: "go", model: model.key, tools: [mcpTool()] });
  await model.waitForRequests(1);
  return session;
}

async function schedule(who: Caller): Promise<string> {
  const res = await callJson("/v1/schedules", "POST", { cron: YEARLY, session: { input: "later", tools: [mcpTool()] } }, who.headers);
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function agent(who: Caller): Promise<string> {
  const res = await callJson("/v1/agents", "POST", { name: "masked", tools: [mcpTool()] }, who.headers);
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Each operation answering tool specs, called so that its answer holds the MCP tool. */
const EXERCISE: Record<string, (who: Caller) => Promise<Response>> = {
  createSession: async (who) => callJson("/v1/sessions", "POST", { input: "go", tools: [mcpTool()] }, who.headers),
  getSession: async (who) => call(`/v1/sessions/${(await hanging(who)).id}`, { headers: who.headers }),
  addSessionMessage: async (who) => {
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const idle = await createSession(who, { model: model.key, tools: [mcpTool()] });
    return post(who, `/v1/sessions/${idle.id}/messages`, { input: "more" });
  },
  cancelSession: async (who) => post(who, `/v1/sessions/${(await hanging(who)).id}/cancel`),
  updateSession: async (who) =>
    callJson(`/v1/sessions/${(await hanging(who)).id}`, "PATCH", { limits: { max_tokens_per_session: 1000 } }, who.headers),
  pauseSession: async (who) => post(who, `/v1/sessions/${(await hanging(who)).id}/pause`),
  resumeSession: async (who) => {
    const session = await hanging(who);
    expect((await post(who, `/v1/sessions/${session.id}/pause`)).status).toBe(200);
    return post(who, `/v1/sessions/${session.id}/resume`);
  },
  approveToolCall: async (who) => post(who, `/v1/sessions/${(await waitingOn(who, APPROVED)).id}/tool-calls/toolu_w/approve`),
  denyToolCall: async (who) => post(who, `/v1/sessions/${(await waitingOn(who, APPROVED)).id}/tool-calls/toolu_w/deny`, { reason: "no" }),
  submitToolOutput: async (who) =>
    post(who, `/v1/sessions/${(await waitingOn(who, CLIENT, "waiting_tool_output")).id}/tool-calls/toolu_w/output`, { output: "x" }),
  createSchedule: async (who) =>
    callJson("/v1/schedules", "POST", { cron: YEARLY, session: { input: "later", tools: [mcpTool()] } }, who.headers),
  getSchedule: async (who) => call(`/v1/schedules/${await schedule(who)}`, { headers: who.headers }),
  listSchedules: async (who) => {
    await schedule(who);
    return call("/v1/schedules", { headers: who.headers });
  },
  updateSchedule: async (who) => callJson(`/v1/schedules/${await schedule(who)}`, "PATCH", { paused: true }, who.headers),
  forkSession: async (who) => post(who, `/v1/sessions/${(await createSession(who, { tools: [mcpTool()] })).id}/fork`, {}),
  exportSession: async (who) =>
    call(`/v1/sessions/${(await createSession(who, { tools: [mcpTool()] })).id}/export`, { headers: who.headers }),
  createAgent: async (who) => callJson("/v1/agents", "POST", { name: "masked", tools: [mcpTool()] }, who.headers),
  getAgent: async (who) => call(`/v1/agents/${await agent(who)}`, { headers: who.headers }),
  listAgents: async (who) => {
    await agent(who);
    return call("/v1/agents", { headers: who.headers });
  },
  updateAgent: async (who) => callJson(`/v1/agents/${await agent(who)}`, "PATCH", { system: "changed" }, who.headers),
  listAgentVersions: async (who) => call(`/v1/agents/${await agent(who)}/versions`, { headers: who.headers }),
  getAgentVersion: async (who) => call(`/v1/agents/${await agent(who)}/versions/1`, { headers: who.headers }),
  setAgentAlias: async (who) => callJson(`/v1/agents/${await agent(who)}/aliases/production`, "PUT", { version: 1 }, who.headers),
  promoteAgentCanary: async (who) => {
    const id = await agent(who);
    expect((await callJson(`/v1/agents/${id}`, "PATCH", { system: "two" }, who.headers)).status).toBe(200);
    const alias = { version: 1, canary: { version: 2, percent: 10 } };
    expect((await callJson(`/v1/agents/${id}/aliases/production`, "PUT", alias, who.headers)).status).toBe(200);
    return post(who, `/v1/agents/${id}/aliases/production/promote`);
  },
};

describe("MCP header values in answers", () => {
  it("lists every operation whose answer can hold a tool spec", async () => {
    const document = (await (await call("/openapi.json")).json()) as Document;
    const answering: string[] = [];
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations)) {
        if (reachable(operation.responses, document.components.schemas).has("McpTool")) answering.push(operation.operationId!);
      }
    }
    expect(answering.sort()).toEqual(Object.keys(EXERCISE).sort());
    // What the platform sends out (webhook tools, notifications) carries no tool spec at all.
    for (const [name, webhook] of Object.entries(document.webhooks))
      expect(reachable(webhook, document.components.schemas).has("McpTool"), name).toBe(false);
  });

  it.each(Object.keys(EXERCISE))("%s shows each header masked", async (operationId) => {
    // tenant:admin for the one operation that needs it (a session's limits, `updateSession`).
    const who = await caller(undefined, ["sessions:read", "sessions:write", "agents:write", "tenant:admin"]);
    const res = await EXERCISE[operationId]!(who);
    const body = await res.text();
    expect(res.status, body).toBeLessThan(300);
    expect(body).toContain('"Authorization":"********"');
    expect(body).not.toContain(SECRET);
  });
});
