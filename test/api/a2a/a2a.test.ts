/**
 * The A2A routes in workerd: the card, every kind of bad JSON-RPC answered as its JSON-RPC error
 * (never a 5xx, never a problem document), both protocol versions' method names, a task id that
 * reaches only its caller's own context, and an answer for a call that does not wait refused.
 */
import { describe, expect, it } from "vitest";
import { BASE_URL, call, callJson } from "../../support/api";
import { mockHook, uniqueKey } from "../../support/mock-client";
import { signedWith, typesFor, webhookSecret } from "../../notifications/helpers";
import { caller, text, toolUse } from "../sessions/helpers";
import { author } from "../agents/helpers";
import { agentScripted, raw, rpc, say, states, subscribe, type TaskJson } from "./helpers";

describe("GET /v1/agents/{agent_id}/a2a/.well-known/agent-card.json", () => {
  it("names the JSON-RPC endpoint, streaming and bearer security; an unknown agent is a 404", async () => {
    const who = await author();
    const agent = await agentScripted(who, []);
    const res = await call(`/v1/agents/${agent.id}/a2a/.well-known/agent-card.json`, { headers: { ...who.headers, "A2A-Version": "1.0" } });
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, unknown>;
    expect(card.supportedInterfaces).toEqual([
      { url: `${BASE_URL}/v1/agents/${agent.id}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${BASE_URL}/v1/agents/${agent.id}/a2a`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(card.capabilities).toMatchObject({ streaming: true });
    expect(card.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: "bearer" }) } });
    expect(res.headers.get("vary")).toMatch(/A2A-Version/i);
    const missing = await call(`/v1/agents/agt_${"0".repeat(26)}/a2a/.well-known/agent-card.json`, { headers: who.headers });
    expect(missing.status).toBe(404);
  });

  it("answers a client that asks for no version (0.3's) with the 0.3 card, as the SDK's reference server does", async () => {
    const who = await author();
    const agent = await agentScripted(who, []);
    const url = `${BASE_URL}/v1/agents/${agent.id}/a2a`;
    for (const headers of [who.headers, { ...who.headers, "A2A-Version": "0.3" }]) {
      const res = await call(`/v1/agents/${agent.id}/a2a/.well-known/agent-card.json`, { headers });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({
        url,
        preferredTransport: "JSONRPC",
        protocolVersion: "0.3",
        capabilities: { streaming: true, pushNotifications: true },
        securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
        security: [{ bearer: [] }],
      });
    }
  });
});

describe("POST /v1/agents/{agent_id}/a2a", () => {
  it("answers what is not a JSON-RPC request with its JSON-RPC error", async () => {
    const who = await author();
    const agent = await agentScripted(who, []);
    expect((await raw(who, agent.id, "{not json")).error?.code).toBe(-32700);
    expect((await raw(who, agent.id, "[]")).error?.code).toBe(-32600);
    expect((await raw(who, agent.id, '"text"')).error?.code).toBe(-32600);
    expect((await raw(who, agent.id, JSON.stringify({ id: 1, method: "GetTask" }))).error?.code).toBe(-32600);
    expect((await raw(who, agent.id, JSON.stringify({ jsonrpc: "2.0", id: 1.5, method: "GetTask" }))).error?.code).toBe(-32600);
    expect((await rpc(who, agent.id, "tasks/nothing", {})).error?.code).toBe(-32601);
    expect((await rpc(who, agent.id, "NoSuchMethod", {})).error?.code).toBe(-32601);
    expect((await rpc(who, agent.id, "GetTask", [1])).error?.code).toBe(-32602);
    expect((await rpc(who, agent.id, "SendMessage", {})).error?.code).toBe(-32602);
    expect((await rpc(who, agent.id, "SendMessage", say(""))).error?.code).toBe(-32602);
    expect((await rpc(who, agent.id, "SendMessage", say("x", { contextId: "c".repeat(129) }))).error?.code).toBe(-32602);
    // Params the SDK's own converters cannot read are bad params, and the SDK's message is not passed on.
    for (const [method, params] of [
      ["SendMessage", { message: { parts: [null] } }],
      ["SendStreamingMessage", { message: { parts: [null] } }],
      ["tasks/pushNotificationConfig/set", { taskId: "1.x" }],
    ] as const) {
      const answer = await rpc(who, agent.id, method, params);
      expect(answer.error?.code, method).toBe(-32602);
      expect(answer.error?.message).not.toMatch(/Cannot read|reading/);
    }
    // A role other than the user's, an id that is not a string, a push config's own credentials: refused, not coerced or dropped.
    for (const params of [
      say("x", { role: "ROLE_UNSPECIFIED" }),
      say("x", { role: "ROLE_ROBOT" }),
      say("x", { contextId: {} }),
      { ...say("x"), configuration: { taskPushNotificationConfig: { url: "https://example.com/hook", token: "secret" } } },
    ])
      expect((await rpc(who, agent.id, "SendMessage", params)).error?.code, JSON.stringify(params)).toBe(-32602);
    expect((await rpc(who, agent.id, "GetTask", { id: { task: 1 } })).error?.code).toBe(-32602);
    const unknown = await rpc(who, agent.id, "GetTask", { id: "not-a-task" });
    expect(unknown).toMatchObject({ jsonrpc: "2.0", id: "r1", error: { code: -32001 } });
  });

  it("answers a message as a task in both protocol versions, and another caller's task id is not found", async () => {
    const who = await author();
    const agent = await agentScripted(who, [{ reply: { content: [text("hello")] } }, { reply: { content: [text("hello again")] } }]);
    const sent = await rpc(who, agent.id, "SendMessage", say("hi"));
    const task = (sent.result as { task: TaskJson & { artifacts: unknown[] } }).task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts).toEqual([
      expect.objectContaining({ artifactId: "answer", parts: [expect.objectContaining({ text: "hello" })] }),
    ]);

    const legacy = await rpc(who, agent.id, "message/send", {
      message: { kind: "message", messageId: "m2", role: "user", contextId: task.contextId, parts: [{ kind: "text", text: "again" }] },
    });
    expect(legacy.result).toMatchObject({ kind: "task", contextId: task.contextId, status: { state: "completed" } });
    expect((await rpc(who, agent.id, "tasks/get", { id: task.id })).result).toMatchObject({ kind: "task", id: task.id });

    const bob = await caller(who.tenantId, ["sessions:read", "sessions:write"], "bob");
    expect((await rpc(bob, agent.id, "GetTask", { id: task.id })).error?.code).toBe(-32001);
    expect((await rpc(bob, agent.id, "CancelTask", { id: task.id })).error?.code).toBe(-32001);
    expect((await rpc(bob, agent.id, "SendMessage", say("mine?", { taskId: task.id }))).error?.code).toBe(-32001);
    const stranger = await author();
    const theirs = await agentScripted(stranger, []);
    expect((await rpc(stranger, theirs.id, "GetTask", { id: task.id })).error?.code).toBe(-32001);
    // A finished task is not cancellable.
    expect((await rpc(who, agent.id, "CancelTask", { id: task.id })).error?.code).toBe(-32002);
  });

  it("waits for approval as input-required, and refuses an answer for a call that does not wait", async () => {
    const who = await author();
    const tools = [{ type: "builtin", name: "get_time", requires_approval: true }];
    const agent = await agentScripted(
      who,
      [{ reply: { content: [toolUse("toolu_q", "get_time", {})] } }, { reply: { content: [text("noon")] } }],
      tools,
    );
    const task = ((await rpc(who, agent.id, "SendMessage", say("time?"))).result as { task: TaskJson }).task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(task.status.message?.parts[1]?.data).toEqual({
      waiting_for: [{ tool_call_id: "toolu_q", name: "get_time", input: {}, kind: "approval" }],
    });
    const ids = { taskId: task.id, contextId: task.contextId };
    const output = {
      message: { messageId: "a1", role: "ROLE_USER", ...ids, parts: [{ data: { tool_call_id: "toolu_q", output: "12:00" } }] },
    };
    expect((await rpc(who, agent.id, "SendMessage", output)).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("toolu_q"),
    });
    expect((await rpc(who, agent.id, "SendMessage", say("more text", ids))).error?.code).toBe(-32004);
    // Resubscribed while it waits, the stream is the waiting task, and ends there as the live stream did.
    expect(states(await subscribe(who, agent.id, task.id))).toEqual(["TASK_STATE_INPUT_REQUIRED"]);
    const approve = {
      message: { messageId: "a2", role: "ROLE_USER", ...ids, parts: [{ data: { tool_call_id: "toolu_q", approved: true } }] },
    };
    const done = ((await rpc(who, agent.id, "SendMessage", approve)).result as { task: TaskJson }).task;
    expect(done).toMatchObject({ id: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    // Subscribed once it is over, the stream is the task as it stands (read from storage, not the log), and ends.
    const replay = await subscribe(who, agent.id, task.id);
    expect(states(replay)).toEqual(["TASK_STATE_COMPLETED"]);
    expect(JSON.stringify(replay)).toContain('"text":"noon"');
  });

  it("sends a context's signed status notifications to the push config of its first message, and shows that config", async () => {
    const who = await author();
    const hook = mockHook(uniqueKey("push"));
    const agent = await agentScripted(who, [{ reply: { content: [text("pushed")] } }]);
    const push = { url: hook.url, id: "", taskId: "", token: "" };
    const sent = await rpc(who, agent.id, "SendMessage", { ...say("hi"), configuration: { taskPushNotificationConfig: push } });
    const task = (sent.result as { task: TaskJson }).task;
    const [request] = await hook.waitForRequests(1);
    expect(typesFor([request!], (request!.body as { session: { id: string } }).session.id)).toEqual(["session.done"]);
    const admin = await caller(who.tenantId, ["tenant:admin"], "admin-1");
    expect(await signedWith(request!, await webhookSecret(admin))).toBe(true);
    const config = { taskId: task.id, id: "notify_url", url: hook.url };
    expect((await rpc(who, agent.id, "ListTaskPushNotificationConfigs", { taskId: task.id })).result).toEqual({ configs: [config] });
    expect((await rpc(who, agent.id, "GetTaskPushNotificationConfig", { taskId: task.id, id: "notify_url" })).result).toEqual(config);
    expect((await rpc(who, agent.id, "CreateTaskPushNotificationConfig", { taskId: task.id, url: hook.url })).result).toEqual(config);
    const elsewhere = { taskId: task.id, url: "https://example.com/hook" };
    expect((await rpc(who, agent.id, "CreateTaskPushNotificationConfig", elsewhere)).error?.code).toBe(-32004);
    expect((await rpc(who, agent.id, "DeleteTaskPushNotificationConfig", { taskId: task.id, id: "notify_url" })).error?.code).toBe(-32004);
  });

  it("needs sessions:read to read a task or its push config, and sessions:write to send or cancel", async () => {
    const who = await author();
    const agent = await agentScripted(who, [{ reply: { content: [text("done")] } }]);
    const task = ((await rpc(who, agent.id, "SendMessage", say("hi"))).result as { task: TaskJson }).task;
    const reader = await caller(who.tenantId, ["sessions:read"], who.subject);
    expect((await rpc(reader, agent.id, "GetTask", { id: task.id })).result).toMatchObject({ id: task.id });
    expect((await rpc(reader, agent.id, "tasks/get", { id: task.id })).result).toMatchObject({ id: task.id });
    expect((await rpc(reader, agent.id, "ListTaskPushNotificationConfigs", { taskId: task.id })).result).toEqual({});
    expect(states(await subscribe(reader, agent.id, task.id))).toEqual(["TASK_STATE_COMPLETED"]);
    const writer = await caller(who.tenantId, ["sessions:write"], who.subject);
    for (const [who2, method, params] of [
      [reader, "SendMessage", say("more", { contextId: task.contextId })],
      [reader, "message/send", { message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "x" }] } }],
      [reader, "CancelTask", { id: task.id }],
      [writer, "GetTask", { id: task.id }],
    ] as const) {
      const res = await callJson(`/v1/agents/${agent.id}/a2a`, "POST", { jsonrpc: "2.0", id: 1, method, params }, who2.headers);
      expect(res.status, method).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
    const none = await caller(who.tenantId, ["agents:write"]);
    expect(
      (await callJson(`/v1/agents/${agent.id}/a2a`, "POST", { jsonrpc: "2.0", id: 1, method: "GetTask", params: {} }, none.headers)).status,
    ).toBe(403);
  });
});
