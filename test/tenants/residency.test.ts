/**
 * A tenant's jurisdiction (`PUT /v1/admin/tenants/{tenant_id}`): set by a platform admin while
 * the tenant holds no data, shown on the tenant, audited in the platform's log, refused with a
 * 409 problem once the tenant holds data; every object of the tenant is then addressed in it.
 * A local workerd implements no jurisdiction ("Jurisdiction restrictions are not implemented in
 * workerd.", read here): where it does, the ids' own `jurisdiction` is checked.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import * as objects from "../../src/objects";
import { latestVersion, migrate, schemaVersion } from "../../src/storage/migrations";
import { TENANT_REGISTRY_MIGRATIONS } from "../../src/tenants/registry-migrations";
import type { TenantRegistryRpc } from "../../src/tenants/rpc";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

const OPS_TENANT = freshTenant("ops-residency");
const admin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-res", scopes: ["platform:admin"] });
const setJurisdiction = async (tenantId: string, body: unknown) => callJson(`/v1/admin/tenants/${tenantId}`, "PUT", body, await admin());
const shown = async (tenantId: string) =>
  ((await (await call(`/v1/admin/tenants/${tenantId}`, { headers: await admin() })).json()) as { jurisdiction: string | null })
    .jurisdiction;

/** Whether this runtime narrows a namespace; a local workerd refuses every jurisdiction, and says so. */
function runtimeNarrows(): boolean {
  try {
    env.TENANT_INDEX.jurisdiction("eu");
    return true;
  } catch (error) {
    expect(String(error)).toContain("Jurisdiction restrictions are not implemented in workerd.");
    return false;
  }
}

describe("a tenant's jurisdiction", () => {
  it("is set on a tenant that holds nothing, shown, changed and removed, and audited in the platform's log", async () => {
    const tenantId = freshTenant("eu");
    expect(await shown(tenantId)).toBeNull();
    const res = await setJurisdiction(tenantId, { jurisdiction: "eu" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tenant_id: string; jurisdiction: string }).jurisdiction).toBe("eu");
    expect(await shown(tenantId)).toBe("eu");
    // Still nothing held (reading the tenant created nothing): it may change its mind.
    expect((await setJurisdiction(tenantId, { jurisdiction: "fedramp" })).status).toBe(200);
    expect((await setJurisdiction(tenantId, { jurisdiction: null })).status).toBe(200);
    expect(await shown(tenantId)).toBeNull();
    expect((await setJurisdiction(tenantId, { jurisdiction: "eu" })).status).toBe(200);

    const log = await call(`/v1/admin/audit-log?action=tenant.jurisdiction_set&limit=200`, { headers: await admin() });
    const entries = ((await log.json()) as { data: { target: { id: string }; details: { jurisdiction: string | null } }[] }).data;
    const mine = entries.filter((entry) => entry.target.id === tenantId).map((entry) => entry.details.jurisdiction);
    expect(mine).toEqual(["eu", null, "fedramp", "eu"]);
  });

  it("places every object of the tenant in it: the ids say so where the runtime places by jurisdiction", async () => {
    const tenantId = freshTenant("eu-ids");
    expect((await setJurisdiction(tenantId, { jurisdiction: "eu" })).status).toBe(200);
    // The tenant works in its jurisdiction: its first request binds its index there.
    const member = await bearer({ tenantId, scopes: ["tenant:admin"] });
    expect((await call("/v1/tenant", { headers: member })).status).toBe(200);
    const stubs: [string, DurableObjectStub<undefined>, string][] = [
      ["SESSION", objects.sessionStub(env, tenantId, "ses_1") as never, objects.sessionObjectName(tenantId, "ses_1")],
      ["TENANT_INDEX", objects.tenantIndexStub(env, tenantId) as never, objects.tenantIndexName(tenantId)],
      ["SCHEDULER", objects.schedulerStub(env, tenantId) as never, objects.schedulerName(tenantId)],
      ["AGENT_STORE", objects.agentStoreStub(env, tenantId) as never, objects.agentStoreName(tenantId)],
      ["MEMORY_STORE", objects.memoryStoreStub(env, tenantId) as never, objects.memoryStoreName(tenantId)],
      ["VAULT", objects.vaultStub(env, tenantId) as never, objects.vaultName(tenantId)],
    ];
    const narrows = runtimeNarrows();
    for (const [binding, stub, name] of stubs) {
      if (narrows) expect(stub.id.jurisdiction, binding).toBe("eu");
      else {
        // Locally: no id carries a jurisdiction, and the object is the plain namespace's.
        expect(stub.id.jurisdiction, binding).toBeUndefined();
        expect(stub.id.equals((env[binding as objects.TenantBinding] as unknown as DurableObjectNamespace).idFromName(name)), binding).toBe(
          true,
        );
      }
    }
  });

  it("is refused with a 409 problem once the tenant holds data, and stays as it was", async () => {
    const tenantId = freshTenant("busy");
    const member = await bearer({ tenantId, scopes: ["tenant:admin"] });
    expect((await call("/v1/tenant", { headers: member })).status).toBe(200);
    const res = await setJurisdiction(tenantId, { jurisdiction: "eu" });
    expect(res.status).toBe(409);
    const problem = await readProblem(res);
    expect(problem.code).toBe("conflict");
    expect(problem.detail).toContain("holds data");
    expect(await shown(tenantId)).toBeNull();
    // Removing none is refused too: the jurisdiction of a tenant with data does not move.
    expect((await setJurisdiction(tenantId, { jurisdiction: null })).status).toBe(409);
  });

  it("is refused when any object of the tenant stores anything, though the tenant is not listed", async () => {
    const tenantId = freshTenant("stored");
    await runInDurableObject(objects.vaultStub(env, tenantId) as never, async (_instance, state: DurableObjectState) => {
      state.storage.kv.put("left", 1);
    });
    const res = await setJurisdiction(tenantId, { jurisdiction: "fedramp" });
    expect(res.status).toBe(409);
    expect((await readProblem(res)).code).toBe("conflict");
  });

  it("refuses what is not a jurisdiction with a 400 problem naming the field", async () => {
    const tenantId = freshTenant("bad");
    for (const body of [{ jurisdiction: "us" }, {}, { jurisdiction: "eu", extra: 1 }]) {
      const res = await setJurisdiction(tenantId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await readProblem(res)).code).toBe("validation_failed");
    }
  });
});

describe("a deleted tenant's jurisdiction", () => {
  it("is kept once its deletion finishes, so its objects are still addressed where they were created", async () => {
    // After deletion its objects are still read (the storage report that shows them erased, a late alarm): in eu, not elsewhere.
    const registry = objects.tenantRegistryStub(env) as unknown as TenantRegistryRpc;
    const tenantId = freshTenant("gone-eu");
    const context = { actor: null, request_id: "req", client_request_id: null, client_ip: null };
    expect(await registry.setJurisdiction(tenantId, "eu", 1000, context)).toMatchObject({ ok: true });
    await registry.register(tenantId, 2000);
    const started = await registry.beginDeletion(tenantId, 3000);
    await registry.finishDeletion(tenantId, started.started_at, 4000);
    expect(await registry.placement(tenantId)).toEqual({ jurisdiction: "eu", settled: true });
    expect(await registry.setJurisdiction(tenantId, null, 5000, context)).toEqual({ ok: false, reason: "deleted" });
  });
});

describe("TenantRegistry storage written before jurisdictions", () => {
  it("gets the placement table on wake: its tenants have none, and only an unlisted tenant may be given one", async () => {
    const id = env.TENANT_REGISTRY.idFromName(`registry-placement-${crypto.randomUUID()}`);
    await runInDurableObject(env.TENANT_REGISTRY.get(id), async (_instance, state) => {
      await state.storage.deleteAll();
      migrate(state.storage, TENANT_REGISTRY_MIGRATIONS.slice(0, 4));
      state.storage.sql.exec(`INSERT INTO tenants (tenant_id, created_at) VALUES ('old-tenant', 1000)`);
      expect(schemaVersion(state.storage)).toBe(4);
    });
    await abortAllDurableObjects();
    const stub = env.TENANT_REGISTRY.get(id);
    const registry = stub as unknown as TenantRegistryRpc;
    expect((await registry.list({ limit: 10 })).data).toEqual([
      { tenant_id: "old-tenant", created_at: new Date(1000).toISOString(), jurisdiction: null },
    ]);
    expect(await registry.placement("old-tenant")).toEqual({ jurisdiction: null, settled: true });
    const context = { actor: null, request_id: "req", client_request_id: null, client_ip: null };
    expect(await registry.setJurisdiction("old-tenant", "eu", 2000, context)).toEqual({ ok: false, reason: "holds_data" });
    expect(await registry.setJurisdiction("new-tenant", "eu", 2000, context)).toEqual({ ok: true, jurisdiction: "eu", changed: true });
    expect(await registry.placement("new-tenant")).toEqual({ jurisdiction: "eu", settled: false });
    // Its first use settles it, and the list shows it.
    await registry.register("new-tenant", 3000);
    expect(await registry.placement("new-tenant")).toEqual({ jurisdiction: "eu", settled: true });
    expect((await registry.list({ limit: 10 })).data.map((t) => t.jurisdiction)).toEqual(["eu", null]);
    await runInDurableObject(stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_REGISTRY_MIGRATIONS));
    });
  });
});
