import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

// The operator of this file's admin calls, with a request window of its own (files share the runtime).
const OPS_TENANT = freshTenant("ops");

/** Every tenant id the registry lists, through the admin route. */
async function registeredTenants(): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await call(`/v1/admin/tenants?limit=100${cursor ? `&cursor=${cursor}` : ""}`, { headers: await platformAdmin() });
    const page = (await res.json()) as { data: { tenant_id: string }[]; next_cursor: string | null };
    ids.push(...page.data.map((tenant) => tenant.tenant_id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });

describe("platform admin: tenants", () => {
  it("lists tenants with their suspension and usage", async () => {
    const tenantId = freshTenant("list");
    await tenantIndexStub(env, tenantId).setAllowedModels(tenantId, null);
    const headers = await platformAdmin();
    const seen: { tenant_id: string; suspended: boolean; usage: { window_days: number } }[] = [];
    let cursor: string | null = null;
    // The registry holds every tenant the other test files made in this runtime (thousands): pages
    // of 50 keep the walk within the operator's request window, and it stops once the tenant is seen.
    do {
      const res = await call(`/v1/admin/tenants?limit=50${cursor ? `&cursor=${cursor}` : ""}`, { headers });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { data: typeof seen; next_cursor: string | null };
      expect(page.data.length).toBeLessThanOrEqual(50);
      seen.push(...page.data);
      cursor = seen.some((tenant) => tenant.tenant_id === tenantId) ? null : page.next_cursor;
    } while (cursor);
    const mine = seen.find((tenant) => tenant.tenant_id === tenantId);
    expect(mine).toMatchObject({ suspended: false, usage: { window_days: 30 } });
  });

  it("shows an unknown tenant with the defaults, and neither creates nor registers it", async () => {
    const tenantId = freshTenant("unknown");
    const headers = await platformAdmin();
    for (const path of [`/v1/admin/tenants/${tenantId}`, `/v1/admin/tenants/${tenantId}/sessions`]) {
      const res = await call(path, { headers });
      expect(res.status, path).toBe(200);
    }
    expect(await (await call(`/v1/admin/tenants/${tenantId}`, { headers })).json()).toMatchObject({
      tenant_id: tenantId,
      suspended: false,
      limit_overrides: {},
      usage: { window_days: 30 },
      counts: { running: 0, done: 0 },
    });
    expect(await registeredTenants()).not.toContain(tenantId);
    const stored = await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => ({
      keys: [...state.storage.kv.list()].length,
      tables: state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'`).toArray()
        .length,
    }));
    expect(stored).toEqual({ keys: 0, tables: 0 });
  });

  it("shows one tenant and replaces its limit overrides", async () => {
    const tenantId = freshTenant();
    const headers = await platformAdmin();
    const put = await callJson(
      `/v1/admin/tenants/${tenantId}/limits`,
      "PUT",
      { max_concurrent_runs: 2, max_tokens_per_day: 1000 },
      headers,
    );
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({
      tenant_id: tenantId,
      limit_overrides: { max_concurrent_runs: 2, max_tokens_per_day: 1000 },
      effective_limits: { max_concurrent_runs: 2, max_tokens_per_day: 1000, max_steps_per_run: 20 },
    });

    const replaced = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_steps_per_run: 5 }, headers);
    expect(((await replaced.json()) as { limit_overrides: unknown }).limit_overrides).toEqual({ max_steps_per_run: 5 });

    const res = await call(`/v1/admin/tenants/${tenantId}`, { headers });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      tenant_id: tenantId,
      suspended: false,
      effective_limits: { max_steps_per_run: 5, max_concurrent_runs: 10 },
      usage: { window_days: 30 },
      counts: { running: 0 },
    });
  });

  it("refuses limits outside their ranges or with unknown names", async () => {
    const headers = await platformAdmin();
    const tenantId = freshTenant();
    const low = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_request_bytes: 10 }, headers);
    expect((await readProblem(low)).errors?.[0]?.path).toBe("body.max_request_bytes");
    const unknown = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_fun: 1 }, headers);
    expect(unknown.status).toBe(400);
  });

  it("suspends a tenant, whose requests then get 403, and lifts it again", async () => {
    const tenantId = freshTenant();
    const headers = await platformAdmin();
    const member = await bearer({ tenantId, scopes: ["sessions:read"] });
    expect((await call("/v1/tenant", { headers: member })).status).toBe(200);

    const suspended = await call(`/v1/admin/tenants/${tenantId}/suspend`, { method: "POST", headers });
    expect(suspended.status).toBe(200);
    expect(await suspended.json()).toEqual({ tenant_id: tenantId, suspended: true, cancelled: 0 });
    expect((await call("/v1/tenant", { headers: member })).status).toBe(403);

    const lifted = await call(`/v1/admin/tenants/${tenantId}/unsuspend`, { method: "POST", headers });
    expect(lifted.status).toBe(200);
    expect(((await lifted.json()) as { suspended: boolean }).suspended).toBe(false);
    expect((await call("/v1/tenant", { headers: member })).status).toBe(200);
  });

  it("validates the tenant id in the path", async () => {
    const res = await call("/v1/admin/tenants/-bad!id", { headers: await platformAdmin() });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("path.tenant_id");
  });

  it("is closed to tenant admins", async () => {
    const tenantId = freshTenant();
    const headers = await bearer({ tenantId, scopes: ["tenant:admin"] });
    expect((await call("/v1/admin/tenants", { headers })).status).toBe(403);
    expect((await call(`/v1/admin/tenants/${tenantId}`, { headers })).status).toBe(403);
    expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", { max_steps_per_run: 999 }, headers)).status).toBe(403);
    expect((await call(`/v1/admin/tenants/${tenantId}/suspend`, { method: "POST", headers })).status).toBe(403);
  });
});

describe("platform admin: the vault's re-encryption", () => {
  it("runs the pass for a page of tenants and says what is left, page by page", async () => {
    const headers = await platformAdmin();
    const res = await call("/v1/admin/vault/reseal?limit=2", { method: "POST", headers });
    expect(res.status).toBe(200);
    const page = (await res.json()) as {
      tenants: number;
      resealed: number;
      remaining: number;
      unreadable: number;
      next_cursor: string | null;
    };
    // Every test seals under the one key, so nothing is left under another.
    expect(page).toMatchObject({ tenants: 2, resealed: 0, remaining: 0, unreadable: 0 });
    expect(page.next_cursor).toEqual(expect.any(String));
    const next = await call(`/v1/admin/vault/reseal?limit=2&cursor=${page.next_cursor}`, { method: "POST", headers });
    expect(next.status).toBe(200);
    const bad = await call("/v1/admin/vault/reseal?cursor=nope", { method: "POST", headers });
    expect(bad.status).toBe(400);
    expect((await readProblem(bad)).errors?.[0]?.path).toBe("query.cursor");
    const tenantAdmin = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    expect((await call("/v1/admin/vault/reseal", { method: "POST", headers: tenantAdmin })).status).toBe(403);
  });
});

describe("admin: a tenant's sessions", () => {
  it("lets a tenant admin list and cancel its own tenant's sessions", async () => {
    const tenantId = freshTenant();
    const headers = await bearer({ tenantId, scopes: ["tenant:admin"] });
    const list = await call(`/v1/admin/tenants/${tenantId}/sessions?status=running`, { headers });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ data: [], next_cursor: null });
    const cancel = await callJson(`/v1/admin/tenants/${tenantId}/sessions/cancel`, "POST", { status: "running" }, headers);
    expect(cancel.status).toBe(200);
    expect(await cancel.json()).toEqual({ cancelled: 0 });
  });

  it("lets a platform admin reach any tenant's sessions", async () => {
    const res = await call(`/v1/admin/tenants/${freshTenant()}/sessions`, { headers: await platformAdmin() });
    expect(res.status).toBe(200);
  });

  it("refuses a tenant admin of another tenant", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    const victim = freshTenant();
    expect((await call(`/v1/admin/tenants/${victim}/sessions`, { headers })).status).toBe(403);
    expect((await callJson(`/v1/admin/tenants/${victim}/sessions/cancel`, "POST", {}, headers)).status).toBe(403);
  });

  it("refuses a session reader without tenant:admin", async () => {
    const tenantId = freshTenant();
    const headers = await bearer({ tenantId, scopes: ["sessions:read", "sessions:write"] });
    expect((await call(`/v1/admin/tenants/${tenantId}/sessions`, { headers })).status).toBe(403);
  });

  it("validates the filters", async () => {
    const tenantId = freshTenant();
    const headers = await bearer({ tenantId, scopes: ["tenant:admin"] });
    const list = await call(`/v1/admin/tenants/${tenantId}/sessions?status=sleeping`, { headers });
    expect((await readProblem(list)).errors?.[0]?.path).toBe("query.status");
    const cancel = await callJson(`/v1/admin/tenants/${tenantId}/sessions/cancel`, "POST", { status: "sleeping" }, headers);
    expect((await readProblem(cancel)).errors?.[0]?.path).toBe("body.status");
  });
});
