/**
 * Tenant deletion through the API: the tenant is refused at once, then every object of it is
 * emptied in the background, counted before and after through the storage report; another
 * tenant's objects keep every row. The crash-and-restart case is test/e2e/tenant-deletion.test.ts.
 */
import { abortAllDurableObjects, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub, tenantRegistryStub } from "../../../src/objects";
import type { Session } from "../../../src/session-config/types";
import { call, callJson, readProblem } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { createSession, text, toolUse, waitForStatus, type Caller } from "../sessions/helpers";

// The operator of this file's admin calls, with a request window of its own (files share the runtime).
const OPS_TENANT = freshTenant("ops-deletion");
const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });
const EVERYTHING = ["sessions:read", "sessions:write", "agents:write", "memory:read", "memory:write", "tenant:admin"] as const;

interface Storage {
  objects: { object: string; id: string | null; tables: number; rows: number; kv_keys: number; bytes: number }[];
  registry: { listed: boolean; deletion_recorded: boolean };
  rows: number;
}

interface Populated {
  who: Caller;
  sessions: string[];
  apiKey: string;
}

/** A tenant with something in every object: sessions (one waiting), an API key, a webhook endpoint and its deliveries, a schedule, an agent, a memory item, credentials and settings. */
async function populate(tenantId = freshTenant()): Promise<Populated> {
  const who: Caller = { tenantId, subject: "owner", headers: await bearer({ tenantId, subject: "owner", scopes: EVERYTHING }) };
  const ok = async (res: Promise<Response>) => {
    const answer = await res;
    if (answer.status >= 300) throw new Error(`${answer.url} answered ${answer.status}: ${await answer.text()}`);
    return (await answer.json()) as Record<string, unknown>;
  };
  await ok(callJson("/v1/tenant/settings", "PUT", { webhook_origins: null, session_retention_days: 30 }, who.headers));
  await ok(
    callJson("/v1/tenant/webhooks", "POST", { url: mockHook(uniqueKey("deletion-hook")).url, event_types: ["session.done"] }, who.headers),
  );
  const apiKey = (await ok(callJson("/v1/api-keys", "POST", { name: "ci", scopes: ["sessions:read"] }, who.headers))).key as string;
  await ok(callJson("/v1/agents", "POST", { name: "triage", system: "Sort tickets." }, who.headers));
  await ok(callJson("/v1/memory/items", "PUT", { namespace: ["users", "u1"], key: "prefs", value: { tone: "brief" } }, who.headers));
  await ok(callJson("/v1/schedules", "POST", { cron: "0 0 1 1 *", session: { input: "yearly" } }, who.headers));
  const credential = { type: "bearer", value: "ghp_deleted-with-its-tenant", allowed_origins: ["https://api.github.com"] };
  await ok(callJson("/v1/tenant/credentials/github", "PUT", credential, who.headers));
  await ok(callJson("/v1/end-users/u1/credentials/github", "PUT", credential, who.headers));
  const model = mockModel(uniqueKey("deletion"));
  await model.script({ reply: { content: [text("done")] } }, { reply: { content: [toolUse("toolu_wait", "get_time")] } });
  const done = await createSession(who, { input: "hi", model: model.key });
  await waitForStatus(who, done.id, ["done"]);
  const waiting = await createSession(who, {
    input: "time?",
    model: model.key,
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
  });
  await waitForStatus(who, waiting.id, ["waiting_approval"]);
  return { who, sessions: [done.id, waiting.id], apiKey };
}

async function storageOf(tenantId: string, sessions: string[]): Promise<Storage> {
  const res = await call(`/v1/admin/tenants/${tenantId}/storage?session_ids=${sessions.join(",")}`, { headers: await platformAdmin() });
  expect(res.status).toBe(200);
  return (await res.json()) as Storage;
}

async function deletionOf(tenantId: string): Promise<{ status: string; sessions_left: number; finished_at: string | null } | null> {
  const res = await call(`/v1/admin/tenants/${tenantId}`, { headers: await platformAdmin() });
  expect(res.status).toBe(200);
  return ((await res.json()) as { deletion: { status: string; sessions_left: number; finished_at: string | null } | null }).deletion;
}

async function waitDeleted(tenantId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await deletionOf(tenantId))?.status !== "deleted") {
    if (Date.now() > deadline) throw new Error(`tenant ${tenantId} was not deleted within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function listedTenants(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(`/v1/admin/tenants?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: await platformAdmin() });
    const page = (await res.json()) as { data: { tenant_id: string }[]; next_cursor: string | null };
    ids.push(...page.data.map((entry) => entry.tenant_id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

describe("DELETE /v1/admin/tenants/{tenant_id}", () => {
  it("erases every object of the tenant, and leaves another tenant's untouched", async () => {
    const doomed = await populate();
    const other = await populate();
    const before = await storageOf(doomed.who.tenantId, doomed.sessions);
    for (const object of before.objects) expect(object.rows + object.kv_keys, object.object).toBeGreaterThan(0);
    const otherBefore = await storageOf(other.who.tenantId, other.sessions);

    const res = await call(`/v1/admin/tenants/${doomed.who.tenantId}`, { method: "DELETE", headers: await platformAdmin() });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ tenant_id: doomed.who.tenantId, deletion: { status: "deleting", finished_at: null } });
    // Suspended at once: the tenant's own token is refused before anything is erased, as deleted.
    const during = await call(`/v1/sessions/${doomed.sessions[0]}`, { headers: doomed.who.headers });
    expect(during.status).toBe(403);
    expect((await readProblem(during)).code).toBe("tenant_deleted");
    // Asked again: the same deletion, with its progress.
    const again = await call(`/v1/admin/tenants/${doomed.who.tenantId}`, { method: "DELETE", headers: await platformAdmin() });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { deletion: { status: string } }).deletion.status).toMatch(/^(deleting|deleted)$/);

    await waitDeleted(doomed.who.tenantId);
    const after = await storageOf(doomed.who.tenantId, doomed.sessions);
    expect(after.objects.map((o) => [o.object, o.tables, o.rows, o.kv_keys])).toEqual(before.objects.map((o) => [o.object, 0, 0, 0]));
    expect(after.registry).toEqual({ listed: false, deletion_recorded: true });
    expect(after.rows).toBe(0);
    // Byte for byte the size of objects never used (SQLite's empty first page).
    const unused = (await storageOf(freshTenant(), ["ses_neverused000000000000000"])).objects[0]!.bytes;
    expect(after.objects.map((o) => o.bytes)).toEqual(after.objects.map(() => unused));
    expect(await storageOf(other.who.tenantId, other.sessions)).toEqual(otherBefore);

    // Afterwards: its key 401, its token 403, its sessions gone, and it is not listed.
    expect((await call("/v1/sessions", { headers: { Authorization: `Bearer ${doomed.apiKey}` } })).status).toBe(401);
    const refused = await call("/v1/sessions", { headers: doomed.who.headers });
    expect(refused.status).toBe(403);
    expect((await readProblem(refused)).code).toBe("tenant_deleted");
    expect(await sessionStub(env, doomed.who.tenantId, doomed.sessions[1]!).get()).toEqual({ ok: false, reason: "session_not_found" });
    const adminList = await call(`/v1/admin/tenants/${doomed.who.tenantId}/sessions`, { headers: await platformAdmin() });
    expect(((await adminList.json()) as { data: Session[] }).data).toEqual([]);
    expect(await listedTenants()).not.toContain(doomed.who.tenantId);
    expect(await listedTenants()).toContain(other.who.tenantId);
    // A refused token recreated nothing, even in a fresh instance.
    await abortAllDurableObjects();
    const fresh = await call("/v1/sessions", { headers: doomed.who.headers });
    expect(fresh.status).toBe(403);
    expect((await readProblem(fresh)).code).toBe("tenant_deleted");
    expect((await storageOf(doomed.who.tenantId, doomed.sessions)).rows).toBe(0);
    // Deleting it again answers the finished deletion.
    const done = await call(`/v1/admin/tenants/${doomed.who.tenantId}`, { method: "DELETE", headers: await platformAdmin() });
    expect(done.status).toBe(202);
    expect(((await done.json()) as { deletion: { status: string; finished_at: string } }).deletion).toMatchObject({
      status: "deleted",
      finished_at: expect.any(String),
    });
    const otherSession = await call(`/v1/sessions/${other.sessions[1]}`, { headers: other.who.headers });
    expect(((await otherSession.json()) as Session).status).toBe("waiting_approval");
  });

  it("answers 404 for a tenant never seen, 403 to anyone but a platform admin", async () => {
    const missing = await call(`/v1/admin/tenants/${freshTenant()}`, { method: "DELETE", headers: await platformAdmin() });
    expect(missing.status).toBe(404);
    await readProblem(missing);
    const tenantId = freshTenant();
    const admin = await bearer({ tenantId, scopes: ["tenant:admin", "sessions:write"] });
    expect((await call("/v1/sessions", { headers: admin })).status).toBe(200);
    const forbidden = await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers: admin });
    expect(forbidden.status).toBe(403);
    await readProblem(forbidden);
    expect((await call("/v1/sessions", { headers: admin })).status).toBe(200);
    expect(await tenantRegistryStub(env).deletion(tenantId)).toBeNull();
  });

  it("refuses a storage report naming more than 100 or malformed session ids", async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `ses_${String(i).padStart(24, "0")}`);
    for (const query of [ids.join(","), "not a session"]) {
      const res = await call(`/v1/admin/tenants/${freshTenant()}/storage?session_ids=${encodeURIComponent(query)}`, {
        headers: await platformAdmin(),
      });
      expect(res.status).toBe(400);
      await readProblem(res);
    }
  });
});
