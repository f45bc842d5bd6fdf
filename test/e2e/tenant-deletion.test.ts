/**
 * Tenant deletion on `wrangler dev`, killed (-9) just after it began: the restarted platform
 * finishes it by itself, every object the tenant had is back to an unused object's storage,
 * and another tenant's objects hold exactly what they held before. Through the SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteTenant, tenantStorage, waitForTenantDeleted, type TenantStorage } from "../../sdk/src/index.ts";
import type { ApiClient } from "./support/api-client";
import { callTools, say, waitForFinal } from "./support/scenario";
import { type Stack, startStack, uniqueName } from "./support/stack";

/** Idle sessions beside the finished and the waiting one: enough for several deletion passes. */
const IDLE_SESSIONS = 30;
/** The storage report counts at most this many sessions per call. */
const REPORT_PAGE = 100;
const OWNER_SCOPES = ["sessions:read", "sessions:write", "agents:write", "memory:read", "memory:write", "tenant:admin"] as const;

describe("tenant deletion killed midway", () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.dispose();
  });

  /** A tenant with something in every object; the ids of its sessions, and an API key of it. */
  async function populate(
    tenantId: string,
    idle: number,
  ): Promise<{ tenantId: string; owner: ApiClient; sessions: string[]; apiKey: string }> {
    const owner = await stack.client(tenantId, "owner", [...OWNER_SCOPES]);
    await owner.expect(200, "PUT", "/v1/tenant/settings", { webhook_origins: null, session_retention_days: 30 });
    await owner.expect(201, "POST", "/v1/tenant/webhooks", { url: stack.mock.hook(uniqueName("hook")).url, event_types: ["session.done"] });
    const { key } = await owner.expect<{ key: string }>(201, "POST", "/v1/api-keys", { name: "ci", scopes: ["sessions:read"] });
    await owner.expect(201, "POST", "/v1/agents", { name: "triage", system: "Sort tickets." });
    await owner.expect(200, "PUT", "/v1/memory/items", { namespace: ["users", "u1"], key: "prefs", value: { tone: "brief" } });
    await owner.expect(201, "POST", "/v1/schedules", { cron: "0 0 1 1 *", session: { input: "yearly" } });
    await owner.expect(200, "PUT", "/v1/tenant/credentials/crm", {
      type: "bearer",
      value: "tenant-crm-token",
      allowed_origins: ["https://crm.example.com"],
    });
    const model = stack.mock.model(uniqueName("model"));
    await model.script(say("done"), callTools([["toolu_wait", "get_time"]]));
    const done = await owner.createSession({ input: "hi", model: model.key });
    await waitForFinal(owner, done.id, 20_000);
    const waiting = await owner.createSession({
      input: "time?",
      model: model.key,
      tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    });
    const sessions = [done.id, waiting.id];
    const idleSessions = await Promise.all(Array.from({ length: idle }, () => owner.createSession({})));
    sessions.push(...idleSessions.map((s) => s.id));
    return { tenantId, owner, sessions, apiKey: key };
  }

  /** Every object's storage, the named sessions counted a page at a time. */
  async function storageOf(ops: ApiClient, tenantId: string, sessions: string[]): Promise<TenantStorage["objects"]> {
    const pages: TenantStorage[] = [];
    for (let i = 0; i < sessions.length; i += REPORT_PAGE)
      pages.push(await tenantStorage(ops.sdk(), tenantId, sessions.slice(i, i + REPORT_PAGE)));
    return [
      ...pages[0]!.objects.filter((o) => o.object !== "session"),
      ...pages.flatMap((page) => page.objects.filter((o) => o.object === "session")),
    ];
  }

  it("finishes after the restart, leaves nothing of the tenant, and nothing of another changed", async () => {
    const ops = await stack.client(uniqueName("ops"), "ops", ["platform:admin"]);
    const doomedId = uniqueName("doomed");
    const doomed = await populate(doomedId, IDLE_SESSIONS);
    const other = await populate(uniqueName("other"), 0);
    const before = await storageOf(ops, doomedId, doomed.sessions);
    expect(before.filter((o) => o.rows + o.kv_keys === 0)).toEqual([]);
    const otherBefore = await storageOf(ops, other.tenantId, other.sessions);

    const started = await deleteTenant(ops.sdk(), doomedId);
    expect(started).toMatchObject({ status: "deleting", finished_at: null });
    await stack.platform.stop("SIGKILL");
    const killedAt = Date.now();
    await stack.platform.start();

    const deleted = await waitForTenantDeleted(ops.sdk(), doomedId, { timeoutMs: 30_000, intervalMs: 200 });
    // Finished by the restarted process: the kill landed while it was under way.
    expect(Date.parse(deleted.finished_at!), stack.logs()).toBeGreaterThan(killedAt);
    expect(await deleteTenant(ops.sdk(), doomedId)).toEqual(deleted);

    const after = await storageOf(ops, doomedId, doomed.sessions);
    // No bigger than an object never used (SQLite's empty file).
    const unused = (await tenantStorage(ops.sdk(), uniqueName("unused"))).objects[0]!.bytes;
    expect(after.map((o) => [o.object, o.id, o.tables, o.rows, o.kv_keys, o.bytes <= unused])).toEqual(
      before.map((o) => [o.object, o.id, 0, 0, 0, true]),
    );
    expect((await tenantStorage(ops.sdk(), doomedId)).registry).toEqual({ listed: false, deletion_recorded: true });
    expect(await storageOf(ops, other.tenantId, other.sessions)).toEqual(otherBefore);

    // Its key 401, its token 403, not listed; the other tenant's waiting session still waits.
    const byKey = await fetch(`${stack.platform.url}/v1/sessions`, { headers: { authorization: `Bearer ${doomed.apiKey}` } });
    expect(byKey.status).toBe(401);
    expect((await doomed.owner.request("GET", `/v1/sessions/${doomed.sessions[0]}`)).status).toBe(403);
    const list = await ops.expect<{ data: { tenant_id: string }[] }>(200, "GET", "/v1/admin/tenants?limit=100");
    expect(list.data.map((t) => t.tenant_id)).not.toContain(doomedId);
    expect(list.data.map((t) => t.tenant_id)).toContain(other.tenantId);
    expect((await other.owner.getSession(other.sessions[1]!)).status).toBe("waiting_approval");

    // Restarted once more: the runtime writes a table of its own into each object it wakes, which is not the tenant's.
    await stack.platform.stop("SIGKILL");
    await stack.platform.start();
    const afterRestart = await storageOf(ops, doomedId, doomed.sessions);
    expect(afterRestart.map((o) => [o.object, o.id, o.tables, o.rows, o.kv_keys])).toEqual(before.map((o) => [o.object, o.id, 0, 0, 0]));
  });
});
