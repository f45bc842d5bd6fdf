/**
 * The lifecycle's storage steps against storage the previous versions wrote: the tenant index's
 * sessions-by-last-change index (the retention sweep's walk) and the registry's deletion records.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrate, latestVersion, schemaVersion } from "../../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../../src/tenants/migrations";
import { TENANT_REGISTRY_MIGRATIONS } from "../../../src/tenants/registry-migrations";
import { tenantIndexStub } from "../../../src/objects";
import type { TenantRegistryRpc } from "../../../src/tenants/rpc";
import { migrateIndexTo, writeLegacyIndex } from "../../support/legacy-storage";
import { freshTenant } from "../../support/tokens";

/** The tenant index's version before the retention sweep's index. */
const INDEX_BEFORE_RETENTION = 8;
/** The registry's version before deletion records. */
const REGISTRY_BEFORE_DELETIONS = 1;

const indexNames = (storage: DurableObjectStorage) =>
  storage.sql
    .exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'sessions'`)
    .toArray()
    .map((row) => row.name);

describe("TenantIndex storage written before retention", () => {
  it("gets the sessions-by-last-change index on wake, keeps its rows, and its expired session is swept", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_BEFORE_RETENTION);
      writeLegacyIndex(state.storage, tenantId, { statements: [] }); // a `done` session, last changed long ago
      expect(indexNames(state.storage)).not.toContain("sessions_by_update");
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    expect(await index.getSessionSummary(tenantId, "ses_legacy")).toMatchObject({ status: "done" });
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(indexNames(state.storage)).toContain("sessions_by_update");
    });
    // Its object is long gone (the row outlived an erase): the sweep drops the row.
    await index.putSettings(tenantId, { webhook_origins: null, session_retention_days: 1, traces: null });
    const deadline = Date.now() + 5_000;
    while ((await index.getSessionSummary(tenantId, "ses_legacy")) !== null) {
      if (Date.now() > deadline) throw new Error("the expired row was never swept");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
});

describe("TenantRegistry storage written before deletion records", () => {
  it("gets the deletion table on wake, keeps its tenants, and refuses a deleted one from then on", async () => {
    // A registry instance of this test's own: the platform's one serves every other file.
    const id = env.TENANT_REGISTRY.idFromName(`registry-migration-${crypto.randomUUID()}`);
    await runInDurableObject(env.TENANT_REGISTRY.get(id), async (_instance, state) => {
      // The constructor migrated it already: storage as the previous version left it instead.
      await state.storage.deleteAll();
      migrate(state.storage, TENANT_REGISTRY_MIGRATIONS.slice(0, REGISTRY_BEFORE_DELETIONS));
      state.storage.sql.exec(`INSERT INTO tenants (tenant_id, created_at) VALUES ('old-tenant', 1000), ('kept-tenant', 2000)`);
      expect(schemaVersion(state.storage)).toBe(REGISTRY_BEFORE_DELETIONS);
    });
    await abortAllDurableObjects();
    const stub = env.TENANT_REGISTRY.get(id);
    const registry = stub as unknown as TenantRegistryRpc;
    expect((await registry.list({ limit: 10 })).data.map((t) => t.tenant_id)).toEqual(["kept-tenant", "old-tenant"]);
    expect(await registry.deletion("old-tenant")).toBeNull();
    await registry.beginDeletion("old-tenant", 5000);
    await registry.finishDeletion("old-tenant", 5000, 6000);
    expect(await registry.deletion("old-tenant")).toEqual({ started_at: 5000, finished_at: 6000 });
    expect(await registry.register("old-tenant", 7000)).toBe(false);
    expect(await registry.register("kept-tenant", 7000)).toBe(true);
    expect((await registry.list({ limit: 10 })).data).toEqual([
      { tenant_id: "kept-tenant", created_at: new Date(2000).toISOString(), jurisdiction: null },
    ]);
    await runInDurableObject(stub, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_REGISTRY_MIGRATIONS));
    });
  });
});
