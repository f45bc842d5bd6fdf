/**
 * Every route and protocol adapter that changes state, walked from the served OpenAPI document
 * (each non-GET operation, and the one GET that records an entry, the export): each is driven
 * to a change, with its own `X-Request-Id`, and every audit entry the walk leaves names its
 * actor, the platform's own request id and that request's client request id. The chat route's
 * approvals (and A2A's and AG-UI's) and the MCP endpoint are in the walk like the REST routes; an operation the
 * document gains fails the walk until it is given a step here.
 */
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../src/audit/types";
import { call } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { deliveries, eventually } from "../../notifications/helpers";
import { caller, createSession, text, toolUse, waitForStatus, type Caller } from "../sessions/helpers";
import { auditPage } from "./helpers";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MCP_ACCEPT = "application/json, text/event-stream";

interface Walk {
  tenantId: string;
  admin: Caller;
  operator: Record<string, string>;
  /** Values one step leaves for a later one. */
  ids: Record<string, string>;
}

type Send = (path: string, init: { method: string; body?: unknown; headers?: Record<string, string> }) => Promise<Response>;

interface Step {
  /** The audit actions this operation records when it changes something; none: it changes nothing the log records. */
  actions: readonly string[];
  run: (walk: Walk, send: Send) => Promise<Response>;
}

/** A session of `model` that waits for the approval of `calls` get_time calls. */
async function waitingSession(walk: Walk, calls: string[]): Promise<string> {
  const model = mockModel(uniqueKey("model"));
  await model.script({ reply: { content: calls.map((id) => toolUse(id, "get_time", {})) } }, { reply: { content: [text("done")] } });
  const tools = [{ type: "builtin", name: "get_time", requires_approval: true }];
  const session = await createSession(walk.admin, { input: "go", model: model.key, tools });
  await waitForStatus(walk.admin, session.id, ["waiting_approval"]);
  return session.id;
}

/** Each operation by `METHOD /template`, in the order the walk drives them. */
const STEPS: Readonly<Record<string, Step>> = {
  "POST /v1/api-keys": {
    actions: ["api_key.created"],
    run: async (w, send) => {
      const res = await send("/v1/api-keys", { method: "POST", body: { name: "walk", scopes: ["tenant:admin"] } });
      const created = (await res.clone().json()) as { key_id: string; key: string };
      w.ids.keyId = created.key_id;
      w.ids.key = created.key;
      return res;
    },
  },
  "POST /v1/auth/token": {
    actions: [],
    run: (w, send) => send("/v1/auth/token", { method: "POST", headers: { Authorization: `Bearer ${w.ids.key}` } }),
  },
  "POST /v1/auth/stream-token": { actions: [], run: (_w, send) => send("/v1/auth/stream-token", { method: "POST" }) },
  "POST /v1/auth/end-user-token": {
    actions: [],
    run: (_w, send) => send("/v1/auth/end-user-token", { method: "POST", body: { subject: "reader", scopes: ["sessions:read"] } }),
  },
  "POST /v1/end-users/{subject}/revoke-tokens": {
    actions: ["end_user.tokens_revoked"],
    run: (_w, send) => send("/v1/end-users/reader/revoke-tokens", { method: "POST" }),
  },
  "PUT /v1/tenant/credentials/{name}": {
    actions: ["credential.put"],
    run: (_w, send) =>
      send("/v1/tenant/credentials/walk", {
        method: "PUT",
        body: { type: "bearer", value: "walk-tenant-token", allowed_origins: ["https://api.example.com"] },
      }),
  },
  "PUT /v1/end-users/{subject}/credentials/{name}": {
    actions: ["credential.put"],
    run: (_w, send) =>
      send("/v1/end-users/reader/credentials/walk", {
        method: "PUT",
        body: { type: "header", header: "x-api-key", value: "walk-user-token", allowed_origins: ["https://api.example.com"] },
      }),
  },
  "DELETE /v1/end-users/{subject}/credentials/{name}": {
    actions: ["credential.deleted"],
    run: (_w, send) => send("/v1/end-users/reader/credentials/walk", { method: "DELETE" }),
  },
  "DELETE /v1/tenant/credentials/{name}": {
    actions: ["credential.deleted"],
    run: (_w, send) => send("/v1/tenant/credentials/walk", { method: "DELETE" }),
  },
  "POST /v1/tenant/webhook-secret": {
    actions: ["webhook_secret.rotated"],
    run: (_w, send) => send("/v1/tenant/webhook-secret", { method: "POST" }),
  },
  "PUT /v1/tenant/settings": {
    actions: ["settings.updated"],
    run: (_w, send) => send("/v1/tenant/settings", { method: "PUT", body: { webhook_origins: null, session_retention_days: 30 } }),
  },
  "PUT /v1/tenant/policy": {
    actions: ["policy.updated"],
    run: (_w, send) =>
      send("/v1/tenant/policy", { method: "PUT", body: { cedar: 'forbid(principal, action, resource == Tool::"none");' } }),
  },
  "POST /v1/tenant/policy/check": {
    actions: [],
    run: (_w, send) =>
      send("/v1/tenant/policy/check", { method: "POST", body: { principal: "alice", tool: { name: "none", type: "builtin" } } }),
  },
  "DELETE /v1/tenant/policy": {
    actions: ["policy.deleted"],
    run: (_w, send) => send("/v1/tenant/policy", { method: "DELETE" }),
  },
  "POST /v1/tenant/webhooks": {
    actions: ["webhook.created"],
    run: async (w, send) => {
      const res = await send("/v1/tenant/webhooks", {
        method: "POST",
        body: { url: mockHook(uniqueKey("hook")).url, event_types: ["session.done"] },
      });
      w.ids.webhookId = ((await res.clone().json()) as { id: string }).id;
      return res;
    },
  },
  "POST /v1/tenant/webhooks/{id}/deliveries/{delivery_id}/redeliver": {
    actions: ["delivery.redelivered"],
    run: async (w, send) => {
      const session = await createSession(w.admin, { input: "hi", model: mockModel(uniqueKey("model")).key });
      await waitForStatus(w.admin, session.id, ["done"]);
      const endpoint = w.ids.webhookId!;
      const original = await eventually(
        async () => (await deliveries(w.admin, endpoint)).find((d) => d.status === "succeeded"),
        "a delivery",
      );
      return send(`/v1/tenant/webhooks/${endpoint}/deliveries/${original.id}/redeliver`, { method: "POST" });
    },
  },
  "DELETE /v1/tenant/webhooks/{id}": {
    actions: ["webhook.deleted"],
    run: (w, send) => send(`/v1/tenant/webhooks/${w.ids.webhookId}`, { method: "DELETE" }),
  },
  "POST /v1/sessions": {
    actions: [],
    run: async (w, send) => {
      const res = await send("/v1/sessions", { method: "POST", body: { input: "hi", model: mockModel(uniqueKey("model")).key } });
      w.ids.sessionId = ((await res.clone().json()) as { id: string }).id;
      await waitForStatus(w.admin, w.ids.sessionId, ["done"]);
      return res;
    },
  },
  "POST /v1/sessions/{id}/messages": {
    actions: [],
    run: async (w, send) => {
      const res = await send(`/v1/sessions/${w.ids.sessionId}/messages`, { method: "POST", body: { input: "again" } });
      await waitForStatus(w.admin, w.ids.sessionId!, ["done"]);
      return res;
    },
  },
  "POST /v1/sessions/{id}/fork": {
    actions: [],
    run: (w, send) => send(`/v1/sessions/${w.ids.sessionId}/fork`, { method: "POST", body: { at_seq: 1 } }),
  },
  "GET /v1/sessions/{id}/export": {
    actions: ["session.exported"],
    run: (w, send) => send(`/v1/sessions/${w.ids.sessionId}/export`, { method: "GET" }),
  },
  "PATCH /v1/sessions/{id}": {
    actions: ["session.limits_updated"],
    run: (w, send) => send(`/v1/sessions/${w.ids.sessionId}`, { method: "PATCH", body: { limits: { max_steps_per_run: 5 } } }),
  },
  "DELETE /v1/sessions/{id}": {
    actions: ["session.deleted"],
    run: (w, send) => send(`/v1/sessions/${w.ids.sessionId}`, { method: "DELETE" }),
  },
  "POST /v1/sessions/{id}/tool-calls/{call_id}/approve": {
    actions: ["tool_call.approved"],
    run: async (w, send) => {
      w.ids.decided = await waitingSession(w, ["toolu_a", "toolu_b"]);
      return send(`/v1/sessions/${w.ids.decided}/tool-calls/toolu_a/approve`, { method: "POST" });
    },
  },
  "POST /v1/sessions/{id}/tool-calls/{call_id}/deny": {
    actions: ["tool_call.denied"],
    run: (w, send) => send(`/v1/sessions/${w.ids.decided}/tool-calls/toolu_b/deny`, { method: "POST", body: { reason: "no" } }),
  },
  "POST /v1/sessions/{id}/tool-calls/{call_id}/output": {
    actions: [],
    run: async (w, send) => {
      const model = mockModel(uniqueKey("model"));
      await model.script({ reply: { content: [toolUse("toolu_c", "ask_user", {})] } }, { reply: { content: [text("thanks")] } });
      const tools = [{ type: "client", name: "ask_user", description: "Asks the user", input_schema: { type: "object" } }];
      const session = await createSession(w.admin, { input: "go", model: model.key, tools });
      await waitForStatus(w.admin, session.id, ["waiting_tool_output"]);
      return send(`/v1/sessions/${session.id}/tool-calls/toolu_c/output`, { method: "POST", body: { output: "yes" } });
    },
  },
  "POST /v1/sessions/{id}/pause": {
    actions: [],
    run: async (w, send) => {
      w.ids.paused = await waitingSession(w, ["toolu_p"]);
      return send(`/v1/sessions/${w.ids.paused}/pause`, { method: "POST" });
    },
  },
  "POST /v1/sessions/{id}/resume": { actions: [], run: (w, send) => send(`/v1/sessions/${w.ids.paused}/resume`, { method: "POST" }) },
  "POST /v1/sessions/{id}/cancel": { actions: [], run: (w, send) => send(`/v1/sessions/${w.ids.paused}/cancel`, { method: "POST" }) },
  "POST /v1/admin/tenants/{tenant_id}/sessions/cancel": {
    actions: ["sessions.cancelled_in_bulk"],
    run: async (w, send) => {
      await waitingSession(w, ["toolu_bulk"]);
      return send(`/v1/admin/tenants/${w.tenantId}/sessions/cancel`, { method: "POST", body: { status: "waiting_approval" } });
    },
  },
  "POST /v1/schedules": {
    actions: ["schedule.created"],
    run: async (w, send) => {
      const res = await send("/v1/schedules", { method: "POST", body: { cron: "0 9 * * 1", session: { input: "weekly" } } });
      w.ids.scheduleId = ((await res.clone().json()) as { id: string }).id;
      return res;
    },
  },
  "PATCH /v1/schedules/{id}": {
    actions: ["schedule.updated"],
    run: (w, send) => send(`/v1/schedules/${w.ids.scheduleId}`, { method: "PATCH", body: { paused: true } }),
  },
  "DELETE /v1/schedules/{id}": {
    actions: ["schedule.deleted"],
    run: (w, send) => send(`/v1/schedules/${w.ids.scheduleId}`, { method: "DELETE" }),
  },
  "POST /v1/agents": {
    actions: ["agent.created", "agent.created"],
    run: async (w, send) => {
      const model = mockModel(uniqueKey("model"));
      // The chat's turn: a call that waits for approval, then the answer once it ran.
      await model.script(
        { reply: { content: [text("Wiring."), toolUse("toolu_w", "get_time", {})] } },
        { reply: { content: [text("Sent.")] } },
        // The A2A task's: the same, through input-required.
        { reply: { content: [toolUse("toolu_x", "get_time", {})] } },
        { reply: { content: [text("Sent over A2A.")] } },
        // The AG-UI run's: the same, ended as an interrupt and decided by the next run's resume.
        { reply: { content: [toolUse("toolu_y", "get_time", {})] } },
        { reply: { content: [text("Sent over AG-UI.")] } },
      );
      const tools = [{ type: "builtin", name: "get_time", requires_approval: true }];
      const res = await send("/v1/agents", { method: "POST", body: { name: uniqueKey("walker"), model: model.key, tools } });
      w.ids.agentId = ((await res.clone().json()) as { id: string }).id;
      // The MCP call's agent, answering at once.
      const answering = mockModel(uniqueKey("model"));
      await answering.script({ reply: { content: [text("from mcp")] } });
      w.ids.mcpTool = uniqueKey("answerer");
      const other = await send("/v1/agents", { method: "POST", body: { name: w.ids.mcpTool, model: answering.key } });
      expect(other.status).toBe(201);
      return res;
    },
  },
  "PATCH /v1/agents/{agent_id}": {
    actions: ["agent.updated"],
    run: (w, send) => send(`/v1/agents/${w.ids.agentId}`, { method: "PATCH", body: { system: "be brief" } }),
  },
  "PUT /v1/agents/{agent_id}/aliases/{alias}": {
    actions: ["agent.alias_set"],
    run: (w, send) => send(`/v1/agents/${w.ids.agentId}/aliases/production`, { method: "PUT", body: { version: 1 } }),
  },
  "POST /v1/agents/{agent_id}/chat": {
    actions: ["tool_call.approved"],
    run: async (w, send) => {
      const user = { id: "u1", role: "user", parts: [{ type: "text", text: "wire it" }] };
      const first = await send(`/v1/agents/${w.ids.agentId}/chat`, {
        method: "POST",
        body: { id: "walk", messages: [user], trigger: "submit-message" },
      });
      expect(await first.text()).toContain("tool-approval-request");
      const answer = {
        id: "a1",
        role: "assistant",
        parts: [
          {
            type: "dynamic-tool",
            toolName: "get_time",
            toolCallId: "toolu_w",
            state: "approval-responded",
            input: {},
            approval: { id: "toolu_w", approved: true },
          },
        ],
      };
      return send(`/v1/agents/${w.ids.agentId}/chat`, {
        method: "POST",
        body: { id: "walk", messages: [user, answer], trigger: "submit-message" },
      });
    },
  },
  "POST /v1/agents/{agent_id}/a2a": {
    actions: ["tool_call.approved"],
    run: async (w, send) => {
      const path = `/v1/agents/${w.ids.agentId}/a2a`;
      const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "wire it again" }] };
      const first = await send(path, { method: "POST", body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } } });
      const { task } = ((await first.json()) as { result: { task: { id: string; contextId: string; status: { state: string } } } }).result;
      expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
      const answer = {
        ...message,
        messageId: "m2",
        taskId: task.id,
        contextId: task.contextId,
        parts: [{ data: { tool_call_id: "toolu_x", approved: true } }],
      };
      return send(path, { method: "POST", body: { jsonrpc: "2.0", id: 2, method: "SendMessage", params: { message: answer } } });
    },
  },
  "POST /v1/agents/{agent_id}/ag-ui": {
    actions: ["tool_call.approved"],
    run: async (w, send) => {
      const path = `/v1/agents/${w.ids.agentId}/ag-ui`;
      const messages = [{ id: "u1", role: "user", content: "wire it once more" }];
      const base = { threadId: "walk-ag-ui", state: {}, tools: [], context: [], forwardedProps: {}, messages };
      const first = await send(path, { method: "POST", body: { ...base, runId: "r1" } });
      expect(await first.text()).toContain("toolu_y");
      const resume = [{ interruptId: "toolu_y", status: "resolved", payload: { approved: true } }];
      return send(path, { method: "POST", body: { ...base, runId: "r2", resume } });
    },
  },
  "POST /v1/mcp": {
    actions: [],
    run: (w, send) => {
      const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: w.ids.mcpTool, arguments: { input: "hi" } } };
      return send("/v1/mcp", { method: "POST", body, headers: { accept: MCP_ACCEPT } });
    },
  },
  "POST /v1/datasets": {
    actions: ["dataset.created"],
    run: async (w, send) => {
      const res = await send("/v1/datasets", { method: "POST", body: { name: "walk", items: [{ input: "hi", expected: "ok" }] } });
      w.ids.datasetId = ((await res.clone().json()) as { id: string }).id;
      return res;
    },
  },
  "POST /v1/datasets/{id}/items": {
    actions: ["dataset.updated"],
    run: (w, send) => send(`/v1/datasets/${w.ids.datasetId}/items`, { method: "POST", body: { items: [{ input: "again" }] } }),
  },
  "POST /v1/datasets/{id}/import": {
    actions: ["dataset.updated"],
    run: (w, send) =>
      send(`/v1/datasets/${w.ids.datasetId}/import`, {
        method: "POST",
        body: '{"input":"from jsonl"}\n',
        headers: { "Content-Type": "application/x-ndjson" },
      }),
  },
  "POST /v1/datasets/{id}/items/from-session": {
    actions: ["dataset.updated"],
    run: async (w, send) => {
      const session = await createSession(w.admin, { input: "hi", model: mockModel(uniqueKey("model")).key });
      await waitForStatus(w.admin, session.id, ["done"]);
      return send(`/v1/datasets/${w.ids.datasetId}/items/from-session`, { method: "POST", body: { session_id: session.id } });
    },
  },
  "PUT /v1/datasets/{id}/items/{index}": {
    actions: ["dataset.updated"],
    run: (w, send) => send(`/v1/datasets/${w.ids.datasetId}/items/1`, { method: "PUT", body: { input: "replaced" } }),
  },
  "DELETE /v1/datasets/{id}/items/{index}": {
    actions: ["dataset.updated"],
    run: (w, send) => send(`/v1/datasets/${w.ids.datasetId}/items/3`, { method: "DELETE" }),
  },
  "POST /v1/evals": {
    actions: ["eval.created"],
    run: async (w, send) => {
      const body = { agent: w.ids.agentId, dataset_id: w.ids.datasetId, scorers: [{ type: "exact" }], concurrency: 1 };
      const res = await send("/v1/evals", { method: "POST", body });
      w.ids.evalId = ((await res.clone().json()) as { id: string }).id;
      return res;
    },
  },
  "POST /v1/evals/{id}/cancel": {
    actions: ["eval.cancelled"],
    run: (w, send) => send(`/v1/evals/${w.ids.evalId}/cancel`, { method: "POST" }),
  },
  "DELETE /v1/datasets/{id}": {
    actions: ["dataset.deleted"],
    run: (w, send) => send(`/v1/datasets/${w.ids.datasetId}`, { method: "DELETE" }),
  },
  "POST /v1/agents/{agent_id}/aliases/{alias}/promote": {
    actions: ["agent.alias_set", "agent.canary_promoted"],
    run: async (w, send) => {
      const path = `/v1/agents/${w.ids.agentId}/aliases/production`;
      const alias = (await send(path, { method: "PUT", body: { version: 1, canary: { version: 2, percent: 10 } } })).status;
      expect(alias).toBe(200);
      return send(`${path}/promote`, { method: "POST" });
    },
  },
  "DELETE /v1/agents/{agent_id}/aliases/{alias}": {
    actions: ["agent.alias_deleted"],
    run: (w, send) => send(`/v1/agents/${w.ids.agentId}/aliases/production`, { method: "DELETE" }),
  },
  "DELETE /v1/agents/{agent_id}": {
    actions: ["agent.archived"],
    run: (w, send) => send(`/v1/agents/${w.ids.agentId}`, { method: "DELETE" }),
  },
  "PUT /v1/memory/items": {
    actions: [],
    run: (_w, send) => send("/v1/memory/items", { method: "PUT", body: { namespace: ["notes"], key: "a", value: { text: "hello" } } }),
  },
  "POST /v1/memory/search": { actions: [], run: (_w, send) => send("/v1/memory/search", { method: "POST", body: { query: "hello" } }) },
  "POST /v1/memory/namespaces": { actions: [], run: (_w, send) => send("/v1/memory/namespaces", { method: "POST", body: {} }) },
  "DELETE /v1/memory/items": {
    actions: ["memory.deleted"],
    run: (_w, send) => send("/v1/memory/items?namespace=notes&key=a", { method: "DELETE" }),
  },
  "PATCH /v1/api-keys/{key_id}": {
    actions: ["api_key.updated"],
    run: (w, send) => send(`/v1/api-keys/${w.ids.keyId}`, { method: "PATCH", body: { max_tokens_per_day: 1000 } }),
  },
  "DELETE /v1/api-keys/{key_id}": {
    actions: ["api_key.revoked"],
    run: (w, send) => send(`/v1/api-keys/${w.ids.keyId}`, { method: "DELETE" }),
  },
  // A platform admin's, on the walked tenant.
  "PUT /v1/admin/tenants/{tenant_id}/limits": {
    actions: ["tenant.limits_updated"],
    run: (w, send) =>
      send(`/v1/admin/tenants/${w.tenantId}/limits`, { method: "PUT", body: { max_steps_per_run: 7 }, headers: w.operator }),
  },
  "PUT /v1/admin/tenants/{tenant_id}/models": {
    actions: ["tenant.models_updated"],
    run: (w, send) =>
      send(`/v1/admin/tenants/${w.tenantId}/models`, { method: "PUT", body: { models: ["claude-*"] }, headers: w.operator }),
  },
  "PUT /v1/admin/tenants/{tenant_id}/shards": {
    actions: ["tenant.shards_set"],
    // Another tenant: a sharded tenant takes no daily budget, which later steps of the walked one set.
    run: (w, send) => {
      w.ids.sharded = freshTenant("walk-sharded");
      return send(`/v1/admin/tenants/${w.ids.sharded}/shards`, { method: "PUT", body: { shards: 2 }, headers: w.operator });
    },
  },
  "POST /v1/admin/vault/reseal": {
    actions: [],
    run: (w, send) => send("/v1/admin/vault/reseal?limit=1", { method: "POST", headers: w.operator }),
  },
  "POST /v1/admin/tenants/{tenant_id}/suspend": {
    actions: ["tenant.suspended"],
    run: (w, send) => send(`/v1/admin/tenants/${w.tenantId}/suspend`, { method: "POST", headers: w.operator }),
  },
  "POST /v1/admin/tenants/{tenant_id}/unsuspend": {
    actions: ["tenant.unsuspended"],
    run: (w, send) => send(`/v1/admin/tenants/${w.tenantId}/unsuspend`, { method: "POST", headers: w.operator }),
  },
  "PUT /v1/admin/tenants/{tenant_id}": {
    actions: ["tenant.jurisdiction_set"],
    // Another tenant: a jurisdiction is set before a tenant holds data. Its entry is in the platform's log.
    run: (w, send) => {
      w.ids.placed = freshTenant("walk-placed");
      return send(`/v1/admin/tenants/${w.ids.placed}`, { method: "PUT", body: { jurisdiction: "eu" }, headers: w.operator });
    },
  },
  "DELETE /v1/admin/tenants/{tenant_id}": {
    actions: ["tenant.deleted"],
    // Another tenant: this one's log is read after the walk. Its entry is read from the platform's log.
    run: async (w, send) => {
      w.ids.deleted = freshTenant("walk-deleted");
      await caller(w.ids.deleted, ["tenant:admin"]).then((who) => call("/v1/tenant", { headers: who.headers }));
      return send(`/v1/admin/tenants/${w.ids.deleted}`, { method: "DELETE", headers: w.operator });
    },
  },
};

/** The served document's operations that change state: every one but a GET's. */
async function stateChangingOperations(): Promise<string[]> {
  const paths = ((await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> }).paths;
  return Object.entries(paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((method) => method !== "get")
      .map((method) => `${method.toUpperCase()} ${template}`),
  );
}

/** Every entry of the walked tenant and the deleted one, once `expected` are all in, or after 10 s as they are. */
async function settledLog(walk: Walk, expected: readonly string[][]): Promise<AuditEntry[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const entries: AuditEntry[] = [];
    for (const tenantId of [walk.tenantId, walk.ids.deleted, walk.ids.placed, walk.ids.sharded]) {
      let cursor: string | null = null;
      do {
        const page = await auditPage(
          `/v1/admin/audit-log?tenant_id=${tenantId}&limit=200${cursor ? `&cursor=${cursor}` : ""}`,
          walk.operator,
        );
        entries.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
    }
    const seen = new Set(entries.map((entry) => `${entry.client_request_id} ${entry.action}`));
    if (expected.every(([id, action]) => seen.has(`${id} ${action}`)) || Date.now() > deadline) return entries;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const clientIdOf = (operation: string) => `walk-${operation.replace(/[^A-Za-z0-9]+/g, "-").replace(/-$/, "")}`;

describe("the audit entry of every path that changes state", () => {
  it("names its actor, the platform's request id and the request's client request id", { timeout: 120_000 }, async () => {
    const documented = await stateChangingOperations();
    expect(
      Object.keys(STEPS)
        .filter((name) => !name.startsWith("GET "))
        .sort(),
    ).toEqual([...documented].sort());

    const tenantId = freshTenant("walk");
    const walk: Walk = {
      tenantId,
      admin: await caller(tenantId, ["tenant:admin"], "walker"),
      operator: await bearer({ tenantId: freshTenant("walk-ops"), subject: uniqueKey("operator"), scopes: ["platform:admin"] }),
      ids: {},
    };
    for (const [operation, step] of Object.entries(STEPS)) {
      const send: Send = (path, init) =>
        call(path, {
          method: init.method,
          headers: {
            ...walk.admin.headers,
            ...(init.body === undefined ? {} : { "Content-Type": "application/json" }),
            ...init.headers,
            "X-Request-Id": clientIdOf(operation),
          },
          // A string is a body as it is (JSONL); anything else is sent as JSON.
          ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
        });
      const res = await step.run(walk, send);
      expect(res.status, `${operation}: ${await res.clone().text()}`).toBeLessThan(300);
      await res.body?.cancel();
    }

    const expected = Object.entries(STEPS).flatMap(([operation, step]) => step.actions.map((action) => [clientIdOf(operation), action]));
    // Read as the platform admin, from another tenant's window; entries from outboxes may come a little later.
    const log = await settledLog(walk, expected);
    const byRequest = (entry: AuditEntry) => [entry.client_request_id, entry.action];
    expect(log.map(byRequest).sort()).toEqual(expect.arrayContaining(expected.sort()));
    for (const entry of log) {
      const what = `${entry.action} of ${entry.client_request_id}`;
      expect(entry.actor, what).toEqual({ sub: expect.stringMatching(/^(walker|operator)/), via: "jwt", key_id: null });
      expect(entry.request_id, what).toMatch(UUID);
      expect(Object.keys(STEPS).map(clientIdOf), what).toContain(entry.client_request_id);
    }
    // Each request its own platform id, whatever the caller named it.
    const requests = new Map<string, string>();
    for (const entry of log) {
      const seen = requests.get(entry.request_id!);
      if (seen !== undefined) expect(seen).toBe(entry.client_request_id);
      requests.set(entry.request_id!, entry.client_request_id!);
    }
  });
});
