/**
 * Who may use an agent's A2A endpoint and what it shows them: an end user's token on both A2A
 * routes (its push URL refused), push configs never shown to end users nor echoed in an error,
 * the URL rule's length cap, and a push URL compared in its stored (normalized) form.
 */
import { describe, expect, it } from "vitest";
import { call } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { text } from "../sessions/helpers";
import { author, createAgent } from "../agents/helpers";
import { backend, endUser } from "../end-users/helpers";
import { agentScripted, rpc, say, type TaskJson } from "./helpers";

const pushed = (url: string, extra: Record<string, unknown> = {}) => ({
  ...say("hi", extra),
  configuration: { taskPushNotificationConfig: { url, id: "", taskId: "", token: "" } },
});

describe("A2A access", () => {
  it("refuses a push URL over 2,048 characters, so no context stores one its notifications could never reach", async () => {
    const who = await author();
    const hook = mockHook(uniqueKey("long"));
    const agent = await agentScripted(who, [{ reply: { content: [text("never")] } }]);
    const long = `${hook.url}?pad=${"a".repeat(3_000)}`;
    const refused = await rpc(who, agent.id, "SendMessage", pushed(long));
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringContaining("2048") });
    expect(JSON.stringify(refused)).not.toContain("aaaaaaaaaa");
  });

  it("compares a later push URL in its stored form, and never echoes the stored one", async () => {
    const who = await author();
    const hook = mockHook(uniqueKey("norm"));
    const agent = await agentScripted(who, [{ reply: { content: [text("one")] } }, { reply: { content: [text("two")] } }]);
    const shouted = hook.url.replace(/^http:/, "HTTP:");
    const task = ((await rpc(who, agent.id, "SendMessage", pushed(shouted))).result as { task: TaskJson }).task;
    expect((await rpc(who, agent.id, "CreateTaskPushNotificationConfig", { taskId: task.id, url: shouted })).result).toMatchObject({
      url: hook.url,
    });
    const again = await rpc(who, agent.id, "SendMessage", pushed(shouted, { contextId: task.contextId }));
    expect(again.result).toMatchObject({ task: { status: { state: "TASK_STATE_COMPLETED" } } });
    const other = await rpc(who, agent.id, "CreateTaskPushNotificationConfig", { taskId: task.id, url: `${hook.url}/other` });
    expect(other.error?.code).toBe(-32004);
    expect(JSON.stringify(other)).not.toContain(hook.url);
  });

  it("lets an end user use both A2A routes, refuses its push URL, and shows it no push config", async () => {
    const tenant = await backend();
    const hook = mockHook(uniqueKey("tenant-hook"));
    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [text("for alice")] } }, { reply: { content: [text("again")] } });
    const agent = await createAgent(tenant, { name: uniqueKey("helper"), model: model.key, notify_url: hook.url } as never);
    const alice = await endUser(tenant, "alice");

    const card = await call(`/v1/agents/${agent.id}/a2a/.well-known/agent-card.json`, {
      headers: { ...alice.headers, "A2A-Version": "1.0" },
    });
    expect(card.status).toBe(200);
    await card.body?.cancel();
    const ownUrl = mockHook(uniqueKey("alice-hook")).url;
    expect((await rpc(alice, agent.id, "SendMessage", pushed(ownUrl))).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("An end user cannot choose where notifications go"),
    });
    const task = ((await rpc(alice, agent.id, "SendMessage", say("hi"))).result as { task: TaskJson }).task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    // The context's session has the agent's notify_url; alice neither sees it nor can name it.
    expect((await rpc(alice, agent.id, "ListTaskPushNotificationConfigs", { taskId: task.id })).result).toEqual({});
    expect((await rpc(alice, agent.id, "GetTaskPushNotificationConfig", { taskId: task.id, id: "notify_url" })).error?.code).toBe(-32001);
    const create = await rpc(alice, agent.id, "CreateTaskPushNotificationConfig", { taskId: task.id, url: hook.url });
    expect(create.error?.code).toBe(-32602);
    const later = await rpc(alice, agent.id, "SendMessage", pushed(hook.url, { contextId: task.contextId }));
    expect(later.error?.code).toBe(-32602);
    for (const answer of [create, later]) expect(JSON.stringify(answer)).not.toContain(hook.url);
    // The tenant's own caller (with the same context id) reaches its own context, not alice's.
    expect((await rpc(tenant, agent.id, "GetTask", { id: task.id })).error?.code).toBe(-32001);
  });
});
