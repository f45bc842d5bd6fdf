/**
 * Changes made in the tenant's other objects (agents, schedules, memory, a session's tool calls)
 * reach the tenant's log through their outboxes: one entry per change once the route answered,
 * none for a change that did not happen. Then every action of the enum is seen at least once
 * across the audit tests (this file and tenant-log.test.ts), and here the redelivery.
 */
import { describe, expect, it } from "vitest";
import { call, callJson } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { caller, createSession, post, text, toolUse, waitForStatus } from "../sessions/helpers";
import { deliveries, eventually, redeliver, registerEndpoint } from "../../notifications/helpers";
import { actionsOf, tenantLog } from "./helpers";

describe("audit entries of the tenant's other objects", () => {
  it("records agents created, changed, archived and their aliases moved, once per change", async () => {
    const tenantId = freshTenant("audit-agents");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const h = admin.headers;
    const agent = (await (await callJson("/v1/agents", "POST", { name: "helper", system: "be brief" }, h)).json()) as { id: string };
    expect((await callJson("/v1/agents", "POST", { name: "not a name!" }, h)).status).toBe(400); // refused: no change
    expect((await callJson(`/v1/agents/${agent.id}`, "PATCH", { system: "be briefer" }, h)).status).toBe(200);
    expect((await callJson(`/v1/agents/${agent.id}`, "PATCH", { system: "be briefer" }, h)).status).toBe(200); // the same: no version
    expect((await callJson(`/v1/agents/${agent.id}/aliases/production`, "PUT", { version: 2 }, h)).status).toBe(200);
    expect((await callJson(`/v1/agents/${agent.id}/aliases/production`, "PUT", { version: 2 }, h)).status).toBe(200); // not moved
    expect((await callJson(`/v1/agents/${agent.id}/aliases/production`, "PUT", { version: 1 }, h)).status).toBe(200);
    expect((await call(`/v1/agents/${agent.id}/aliases/production`, { method: "DELETE", headers: h })).status).toBe(204);
    expect((await call(`/v1/agents/${agent.id}/aliases/production`, { method: "DELETE", headers: h })).status).toBe(404);
    expect((await call(`/v1/agents/${agent.id}`, { method: "DELETE", headers: h })).status).toBe(204);
    expect((await call(`/v1/agents/${agent.id}`, { method: "DELETE", headers: h })).status).toBe(204); // archived already

    const log = await tenantLog(h);
    expect(actionsOf(log)).toEqual([
      "agent.created",
      "agent.updated",
      "agent.alias_set",
      "agent.alias_set",
      "agent.alias_deleted",
      "agent.archived",
    ]);
    for (const entry of log)
      expect(entry).toMatchObject({ tenant_id: tenantId, actor: { sub: "admin-1", via: "jwt" }, target: { type: "agent", id: agent.id } });
    expect(log[2]!.details).toEqual({
      alias: "production",
      version: 2,
      previous_version: null,
      canary: null,
      previous_canary_version: null,
    });
    expect(log[3]!.details).toEqual({ alias: "production", version: 1, previous_version: 2, canary: null, previous_canary_version: null });
  });

  it("records schedules created, changed and deleted, and memory items a person deleted", async () => {
    const tenantId = freshTenant("audit-sched");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const h = admin.headers;
    const created = await callJson("/v1/schedules", "POST", { cron: "0 9 * * 1", session: { input: "weekly" } }, h);
    expect(created.status).toBe(201);
    const schedule = (await created.json()) as { id: string };
    expect((await callJson(`/v1/schedules/${schedule.id}`, "PATCH", { paused: true }, h)).status).toBe(200);
    expect((await callJson(`/v1/schedules/${schedule.id}`, "PATCH", { paused: true }, h)).status).toBe(200); // no change
    expect((await call(`/v1/schedules/${schedule.id}`, { method: "DELETE", headers: h })).status).toBe(204);
    expect((await call(`/v1/schedules/${schedule.id}`, { method: "DELETE", headers: h })).status).toBe(404);

    expect(
      (await callJson("/v1/memory/items", "PUT", { namespace: ["notes"], key: "a", value: { text: "hello" } }, h)).status,
    ).toBeLessThan(300);
    expect((await call("/v1/memory/items?namespace=notes&key=a", { method: "DELETE", headers: h })).status).toBe(204);
    expect((await call("/v1/memory/items?namespace=notes&key=a", { method: "DELETE", headers: h })).status).toBe(404);

    const log = await tenantLog(h);
    expect(actionsOf(log)).toEqual(["schedule.created", "schedule.updated", "schedule.deleted", "memory.deleted"]);
    expect(log[1]!.details).toEqual({
      before: { cron: "0 9 * * 1", timezone: "UTC", paused: false },
      after: { cron: "0 9 * * 1", timezone: "UTC", paused: true },
    });
    expect(log[3]).toMatchObject({ target: { type: "memory_item", id: "notes/a" }, actor: { sub: "admin-1" } });
  });

  it("records tool calls approved, denied and expired, each once; a decision refused records nothing", async () => {
    const tenantId = freshTenant("audit-calls");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const writer = await caller(tenantId, ["sessions:read", "sessions:write"], "user-1");
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { reply: { content: [toolUse("toolu_a", "get_time", {})] } },
      { reply: { content: [toolUse("toolu_b", "get_time", {})] } },
      { reply: { content: [toolUse("toolu_c", "get_time", {})] } },
      { reply: { content: [text("done")] } },
    );
    const tools = [{ type: "builtin", name: "get_time", requires_approval: true, approval_timeout_seconds: 1 }];
    const session = await createSession(writer, { input: "go", model: model.key, tools });
    await waitForStatus(writer, session.id, ["waiting_approval"]);
    expect((await post(writer, `/v1/sessions/${session.id}/tool-calls/toolu_a/approve`, {})).status).toBe(200);
    expect((await post(writer, `/v1/sessions/${session.id}/tool-calls/toolu_a/approve`, {})).status).toBe(409); // decided already
    await waitForStatus(writer, session.id, ["waiting_approval"]);
    expect((await post(writer, `/v1/sessions/${session.id}/tool-calls/toolu_b/deny`, { reason: "not now" })).status).toBe(200);
    await waitForStatus(writer, session.id, ["waiting_approval"]);
    // toolu_c is left to expire.
    await waitForStatus(writer, session.id, ["done"], 10_000);

    const log = await eventually(async () => {
      const entries = await tenantLog(admin.headers);
      return entries.length >= 3 ? entries : undefined;
    }, "the expiry's entry");
    expect(actionsOf(log)).toEqual(["tool_call.approved", "tool_call.denied", "tool_call.expired"]);
    expect(log[0]).toMatchObject({
      actor: { sub: "user-1", via: "jwt" },
      target: { type: "tool_call", id: "toolu_a" },
      details: { session_id: session.id, tool: "get_time" },
    });
    expect(log[1]!.details).toEqual({ session_id: session.id, tool: "get_time", reason: "not now" });
    expect(log[2]).toMatchObject({ actor: null, request_id: null, target: { type: "tool_call", id: "toolu_c" } });
  });

  it("records a redelivery once, and none for one refused", async () => {
    const tenantId = freshTenant("audit-redeliver");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const writer = await caller(tenantId, ["sessions:read", "sessions:write"], "user-1");
    const hook = mockHook(uniqueKey("receiver"));
    const endpoint = await registerEndpoint(admin, hook.url, ["session.done"]);
    const session = await createSession(writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(writer, session.id, ["done"]);
    const original = await eventually(
      async () => (await deliveries(admin, endpoint.id)).find((d) => d.status === "succeeded"),
      "the delivery",
    );
    expect((await redeliver(admin, endpoint.id, original.id)).status).toBe(202);
    expect((await redeliver(admin, endpoint.id, "dlv_AAAAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);

    const log = (await tenantLog(admin.headers)).filter((entry) => entry.action === "delivery.redelivered");
    expect(log).toHaveLength(1);
    expect(log[0]!.details).toEqual({ endpoint_id: endpoint.id, redelivery_of: original.id });
  });
});
