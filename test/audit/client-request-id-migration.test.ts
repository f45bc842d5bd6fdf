/**
 * The client request id, added to audit entries: the tenant index's and the registry's logs
 * migrated from the storage their previous version left (entries without the field), and an
 * entry made by the previous version, still in an outbox, received after the change.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/audit/types";
import { tenantIndexStub } from "../../src/objects";
import type { Page } from "../../src/session-config/types";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { TENANT_REGISTRY_MIGRATIONS } from "../../src/tenants/registry-migrations";
import { migrateIndexTo } from "../support/legacy-storage";
import { freshTenant } from "../support/tokens";

/** The versions before the field (renumbered at a merge, here only). */
const INDEX_BEFORE_CLIENT_REQUEST_ID = 13;
const REGISTRY_BEFORE_CLIENT_REQUEST_ID = 3;

/** An entry exactly as the previous version wrote it: one request id, no client request id. Frozen. */
function entryBefore(tenantId: string, id: string, at: number): Record<string, unknown> {
  return {
    id,
    at: new Date(at).toISOString(),
    tenant_id: tenantId,
    actor: { sub: "admin-1", via: "jwt", key_id: null },
    action: "tenant.suspended",
    target: { type: "tenant", id: tenantId },
    request_id: "trace-42",
    client_ip: "203.0.113.9",
    details: {},
  };
}

function writeEntryBefore(sql: SqlStorage, entry: Record<string, unknown>): void {
  sql.exec(
    `INSERT INTO audit_log (id, at, tenant_id, action, actor_sub, entry) VALUES (?, ?, ?, ?, ?, ?)`,
    entry.id,
    Date.parse(entry.at as string),
    entry.tenant_id,
    entry.action,
    "admin-1",
    JSON.stringify(entry),
  );
}

const ID_BEFORE = "aud_AAAAAAAAAAAAAAAAAAAAAAAA";
const ID_LATE = "aud_BBBBBBBBBBBBBBBBBBBBBBBB";

describe("audit entries from before the client request id", () => {
  it("TenantIndex: keep their request id and read with a null client request id; one handed over late too", async () => {
    const tenantId = freshTenant("mig-crid");
    const at = Date.now() - 60_000;
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_BEFORE_CLIENT_REQUEST_ID);
      writeEntryBefore(state.storage.sql, entryBefore(tenantId, ID_BEFORE, at));
    });
    await abortAllDurableObjects();
    const index = tenantIndexStub(env, tenantId);
    // An outbox of the previous version hands its entry over after the change.
    await index.recordAudit(tenantId, [entryBefore(tenantId, ID_LATE, at + 1) as unknown as AuditEntry]);
    const page = (await index.listAuditLog(tenantId, { limit: 10, cursor: null })) as unknown as Page<AuditEntry>;
    expect(page.data.map((entry) => [entry.id, entry.request_id, entry.client_request_id])).toEqual([
      [ID_LATE, "trace-42", null],
      [ID_BEFORE, "trace-42", null],
    ]);
    expect(page.data[1]).toEqual({ ...entryBefore(tenantId, ID_BEFORE, at), client_request_id: null });
    await runInDurableObject(index, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS)),
    );
  });

  it("TenantRegistry: the platform's log reads them with a null client request id", async () => {
    // The registry is one object every test shares: its previous layout is rebuilt on a scratch one.
    const name = `scratch-${crypto.randomUUID()}`;
    let scratch = env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(name));
    const at = Date.now() - 60_000;
    await runInDurableObject(scratch, async (_instance, state) => {
      state.storage.kv.put("schema_version", REGISTRY_BEFORE_CLIENT_REQUEST_ID);
      writeEntryBefore(state.storage.sql, entryBefore("acme", ID_BEFORE, at));
    });
    await abortAllDurableObjects();
    scratch = env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName(name));
    const page = (await scratch.listAuditLog({ limit: 10, cursor: null })) as unknown as Page<AuditEntry>;
    expect(page.data).toEqual([{ ...entryBefore("acme", ID_BEFORE, at), client_request_id: null }]);
    await runInDurableObject(scratch, async (_instance, state) =>
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_REGISTRY_MIGRATIONS)),
    );
  });
});
