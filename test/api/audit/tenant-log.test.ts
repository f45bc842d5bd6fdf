/**
 * The tenant's audit log through the public API: each administrative change the tenant index
 * makes leaves exactly one entry, with who made it and from where, and a request that changes
 * nothing (a repeat, a refusal, a bad body) leaves none.
 */
import { describe, expect, it } from "vitest";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey, mockHook } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, createSession, post, text, toolUse, waitForStatus } from "../sessions/helpers";
import { actionsOf, auditPage, tenantLog } from "./helpers";

const OPS_TENANT = freshTenant("ops");

describe("tenant audit log", () => {
  it("records API keys, the webhook secret, settings and webhook endpoints once per change, never a secret", async () => {
    const tenantId = freshTenant("audit");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    // This runtime is a local one: the address header is not trusted, whatever the client sends.
    const headers = { ...admin.headers, "CF-Connecting-IP": "203.0.113.7", "X-Request-Id": "change-1" };

    const created = await callJson("/v1/api-keys", "POST", { name: "backend", scopes: ["sessions:read"] }, headers);
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key_id: string; key: string };
    expect((await callJson("/v1/api-keys", "POST", { name: "", scopes: [] }, headers)).status).toBe(400);
    expect((await call(`/v1/api-keys/${key.key_id}`, { method: "DELETE", headers })).status).toBe(204);
    expect((await call(`/v1/api-keys/${key.key_id}`, { method: "DELETE", headers })).status).toBe(204); // a repeat: no change
    expect((await call(`/v1/api-keys/key_${"0".repeat(24)}`, { method: "DELETE", headers })).status).toBe(404);

    const rotated = await call("/v1/tenant/webhook-secret", { method: "POST", headers });
    expect(rotated.status).toBe(200);
    const secret = ((await rotated.json()) as { secret: string }).secret;

    const settings = { webhook_origins: ["https://hooks.example.com"] };
    expect((await callJson("/v1/tenant/settings", "PUT", settings, headers)).status).toBe(200);
    expect((await callJson("/v1/tenant/settings", "PUT", settings, headers)).status).toBe(200); // the same again: no change
    expect((await callJson("/v1/tenant/settings", "PUT", { webhook_origins: "nope" }, headers)).status).toBe(400);
    expect((await callJson("/v1/tenant/settings", "PUT", { webhook_origins: null }, headers)).status).toBe(200);

    const endpoint = (await (
      await callJson("/v1/tenant/webhooks", "POST", { url: mockHook(uniqueKey("hook")).url, event_types: ["session.done"] }, headers)
    ).json()) as { id: string };
    expect((await call(`/v1/tenant/webhooks/${endpoint.id}`, { method: "DELETE", headers })).status).toBe(204);
    expect((await call(`/v1/tenant/webhooks/${endpoint.id}`, { method: "DELETE", headers })).status).toBe(404);

    const log = await tenantLog(admin.headers);
    expect(actionsOf(log)).toEqual([
      "api_key.created",
      "api_key.revoked",
      "webhook_secret.rotated",
      "settings.updated",
      "settings.updated",
      "webhook.created",
      "webhook.deleted",
    ]);
    for (const entry of log) {
      expect(entry).toMatchObject({
        tenant_id: tenantId,
        actor: { sub: "admin-1", via: "jwt", key_id: null },
        client_ip: null,
        client_request_id: "change-1",
      });
      expect(entry.id).toMatch(/^aud_/);
      expect(entry.request_id).toMatch(/^[0-9a-f-]{36}$/);
    }
    // The platform's own id names each request, the caller's repeated one none.
    expect(new Set(log.map((entry) => entry.request_id)).size).toBe(log.length);
    expect(log[0]).toMatchObject({
      target: { type: "api_key", id: key.key_id },
      details: { name: "backend", scopes: ["sessions:read"], expires_at: null },
    });
    const none = { session_retention_days: null, traces: null };
    expect(log[3]!.details).toEqual({ before: { webhook_origins: null, ...none }, after: { ...settings, ...none } });
    expect(log[4]!.details).toEqual({ before: { ...settings, ...none }, after: { webhook_origins: null, ...none } });
    expect(log[5]!.target).toEqual({ type: "webhook", id: endpoint.id });
    const text = JSON.stringify(log);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(key.key.split(".")[2]);
  });

  it("names the API key a change was made with", async () => {
    const tenantId = freshTenant("audit-key");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const key = (await (await callJson("/v1/api-keys", "POST", { name: "ops", scopes: ["tenant:admin"] }, admin.headers)).json()) as {
      key_id: string;
      key: string;
    };
    const withKey = { Authorization: `Bearer ${key.key}` };
    expect((await callJson("/v1/tenant/settings", "PUT", { webhook_origins: ["https://a.example.com"] }, withKey)).status).toBe(200);
    const [entry] = await tenantLog(admin.headers, "&action=settings.updated");
    expect(entry!.actor).toEqual({ sub: expect.any(String), via: "api_key", key_id: key.key_id });
  });

  it("records a session's deletion and export, and a bulk cancel only when it matched a session", async () => {
    const tenantId = freshTenant("audit-ses");
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");
    const writer = await caller(tenantId, ["sessions:read", "sessions:write"], "user-1");

    const done = await createSession(writer, { input: "hi", model: mockModel(uniqueKey("model")).key });
    await waitForStatus(writer, done.id, ["done"]);
    expect((await call(`/v1/sessions/${done.id}/export`, { headers: writer.headers })).status).toBe(200);
    expect((await call(`/v1/sessions/${done.id}`, { method: "DELETE", headers: writer.headers })).status).toBe(204);
    expect((await call(`/v1/sessions/${done.id}`, { method: "DELETE", headers: writer.headers })).status).toBe(404);

    const cancelNone = await callJson(`/v1/admin/tenants/${tenantId}/sessions/cancel`, "POST", {}, admin.headers);
    expect(await cancelNone.json()).toEqual({ cancelled: 0 });

    const model = mockModel(uniqueKey("model"));
    await model.script({ reply: { content: [toolUse("toolu_1", "get_time", {})] } });
    const waiting = await createSession(writer, {
      input: "go",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    await waitForStatus(writer, waiting.id, ["waiting_approval"]);
    const cancel = await callJson(`/v1/admin/tenants/${tenantId}/sessions/cancel`, "POST", { status: "waiting_approval" }, admin.headers);
    expect(await cancel.json()).toEqual({ cancelled: 1 });

    const log = await tenantLog(admin.headers);
    expect(actionsOf(log)).toEqual(["session.exported", "session.deleted", "sessions.cancelled_in_bulk"]);
    expect(log[0]).toMatchObject({ actor: { sub: "user-1" }, target: { type: "session", id: done.id } });
    expect(log[1]).toMatchObject({ actor: { sub: "user-1" }, target: { type: "session", id: done.id } });
    expect(log[2]).toMatchObject({
      actor: { sub: "admin-1" },
      details: { filter: { status: "waiting_approval", created_by: null }, sessions_matched: 1 },
    });
  });

  it("records platform actions in the tenant's log and the platform's, with before and after", async () => {
    const tenantId = freshTenant("audit-ops");
    const subject = uniqueKey("operator");
    const ops = await bearer({ tenantId: OPS_TENANT, subject, scopes: ["platform:admin"] });
    const admin = await caller(tenantId, ["tenant:admin"], "admin-1");

    expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_steps_per_run: 7 }, ops)).status).toBe(200);
    expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_steps_per_run: 7 }, ops)).status).toBe(200);
    expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_steps_per_run: -1 }, ops)).status).toBe(400);
    expect((await callJson(`/v1/admin/tenants/${tenantId}/models`, "PUT", { models: ["claude-*"] }, ops)).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${tenantId}/suspend`, { method: "POST", headers: ops })).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${tenantId}/suspend`, { method: "POST", headers: ops })).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${tenantId}/unsuspend`, { method: "POST", headers: ops })).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${tenantId}/unsuspend`, { method: "POST", headers: ops })).status).toBe(200);

    const expected = ["tenant.limits_updated", "tenant.models_updated", "tenant.suspended", "tenant.unsuspended"];
    const own = await tenantLog(admin.headers);
    expect(actionsOf(own)).toEqual(expected);
    expect(own[0]!.details).toEqual({ before: {}, after: { max_steps_per_run: 7 } });
    expect(own[1]!.details).toEqual({ before: null, after: ["claude-*"] });
    for (const entry of own)
      expect(entry).toMatchObject({ tenant_id: tenantId, actor: { sub: subject, via: "jwt" }, target: { type: "tenant", id: tenantId } });

    const platform = await auditPage(`/v1/admin/audit-log?actor=${subject}`, ops);
    expect(platform.data.map((entry) => entry.id)).toEqual(own.map((entry) => entry.id).reverse());
    const byTenant = await auditPage(`/v1/admin/audit-log?tenant_id=${tenantId}`, ops);
    expect(byTenant.data.map((entry) => entry.id)).toEqual(own.map((entry) => entry.id).reverse());
    // A tenant admin reads its own log only.
    expect((await call(`/v1/admin/audit-log?tenant_id=${tenantId}`, { headers: admin.headers })).status).toBe(403);
  });

  it("filters by action, actor and time, pages, and refuses a bad action or time with a 400", async () => {
    const tenantId = freshTenant("audit-filter");
    const first = await caller(tenantId, ["tenant:admin"], "admin-1");
    const second = await caller(tenantId, ["tenant:admin"], "admin-2");
    for (const origin of ["a", "b", "c"])
      await callJson("/v1/tenant/settings", "PUT", { webhook_origins: [`https://${origin}.example.com`] }, first.headers);
    // The instant between the two sets of changes: clear of both by a few ms, since an entry's
    // time and this one can fall in the same millisecond.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const between = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await post(second, "/v1/tenant/webhook-secret");

    expect(actionsOf(await tenantLog(first.headers, "&action=settings.updated"))).toEqual([
      "settings.updated",
      "settings.updated",
      "settings.updated",
    ]);
    expect(actionsOf(await tenantLog(first.headers, "&actor=admin-2"))).toEqual(["webhook_secret.rotated"]);
    expect(actionsOf(await tenantLog(first.headers, `&since=${between}`))).toEqual(["webhook_secret.rotated"]);
    expect((await tenantLog(first.headers, `&until=${between}`)).length).toBe(3);

    const page = await auditPage("/v1/tenant/audit-log?limit=2", first.headers);
    expect(page.data.length).toBe(2);
    const rest = await auditPage(`/v1/tenant/audit-log?limit=2&cursor=${page.next_cursor}`, first.headers);
    expect(rest.data.length).toBe(2);
    expect(rest.next_cursor).toBeNull();

    for (const query of ["action=api_key.eaten", "since=yesterday", "until=2026-13-01T00:00:00Z", "limit=0"]) {
      const res = await call(`/v1/tenant/audit-log?${query}`, { headers: first.headers });
      expect(res.status, query).toBe(400);
      expect((await readProblem(res)).type).toContain("validation");
    }
    const writer = await caller(tenantId, ["sessions:read", "sessions:write"]);
    expect((await call("/v1/tenant/audit-log", { headers: writer.headers })).status).toBe(403);
  });

  it("shows nothing of another tenant", async () => {
    const a = await caller(freshTenant("audit-a"), ["tenant:admin"]);
    const b = await caller(freshTenant("audit-b"), ["tenant:admin"]);
    await post(a, "/v1/tenant/webhook-secret");
    expect(await tenantLog(b.headers)).toEqual([]);
  });
});
