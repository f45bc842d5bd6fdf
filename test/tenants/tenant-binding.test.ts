import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { checkTenant } from "../../src/tenants/tenant-binding";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { tenantRegistryStub } from "../../src/objects";
import type { TenantEntry } from "../../src/tenants/types";
import { BASE_MS, expectIndexRejects, freshTenant, indexOf } from "./helpers";

async function registered(tenantId: string): Promise<TenantEntry | undefined> {
  const registry = tenantRegistryStub(env);
  let cursor: string | null = null;
  do {
    const page: { data: TenantEntry[]; next_cursor: string | null } = await registry.list({ limit: 200, cursor });
    const found = page.data.find((entry) => entry.tenant_id === tenantId);
    if (found) return found;
    cursor = page.next_cursor;
  } while (cursor);
  return undefined;
}

describe("tenant binding", () => {
  it("refuses a different tenant id on an index already used by a tenant", async () => {
    const owner = freshTenant();
    const intruder = freshTenant();
    await indexOf(owner).admitRequest(owner, { bucket: "k", now: BASE_MS });
    // Address the owner's object but claim another tenant, as a naming bug would.
    await expectIndexRejects(owner, (index) => index.counts(intruder), /different tenant/);
    await expectIndexRejects(owner, (index) => index.admitRequest(intruder, { bucket: "k", now: BASE_MS }), /different tenant/);
    expect((await indexOf(owner).admitRequest(owner, { bucket: "k", now: BASE_MS })).ok).toBe(true);
  });

  it("refuses a malformed tenant id before storing anything", async () => {
    const tenantId = freshTenant();
    await expectIndexRejects(tenantId, (index) => index.counts("../other"), /tenant id/);
    await runInDurableObject(indexOf(tenantId), async (_instance: TenantIndex, state) => {
      expect(state.storage.kv.get("tenant_id")).toBeUndefined();
    });
    expect(await indexOf(tenantId).getConfig(tenantId)).toMatchObject({ tenant_id: tenantId });
  });

  it("neither binds nor registers on a read", async () => {
    const tenantId = freshTenant();
    await indexOf(tenantId).getConfig(tenantId);
    await indexOf(tenantId).counts(tenantId);
    await indexOf(tenantId).usage(tenantId, { days: 3 });
    await indexOf(tenantId).listSessions(tenantId, { limit: 10 });
    expect(await registered(tenantId)).toBeUndefined();
    // Still unbound: another tenant may take it, as on first use.
    await expect(indexOf(tenantId).counts(freshTenant())).resolves.toMatchObject({ running: 0 });
  });

  it("registers the tenant in the registry on first use", async () => {
    const tenantId = freshTenant();
    expect(await registered(tenantId)).toBeUndefined();
    await indexOf(tenantId).setAllowedModels(tenantId, null);
    const config = await indexOf(tenantId).getConfig(tenantId);
    expect(await registered(tenantId)).toEqual({ tenant_id: tenantId, created_at: config.created_at, jurisdiction: null });
    await runInDurableObject(indexOf(tenantId), async (_instance: TenantIndex, state) => {
      expect(state.storage.kv.get("registered")).toBe(true);
    });
  });

  it("checkTenant binds on first use and compares afterwards", () => {
    expect(checkTenant(undefined, "a")).toEqual({ ok: true, firstUse: true });
    expect(checkTenant("a", "a")).toEqual({ ok: true, firstUse: false });
    expect(checkTenant("a", "b")).toEqual({ ok: false });
    expect(checkTenant("a", "A")).toEqual({ ok: false });
  });
});
