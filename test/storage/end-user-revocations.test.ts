/**
 * The tenant index's end-user revocations (migration 13) on storage written by the version
 * before it: the index wakes at the newest version with its rows, no end user is revoked, and a
 * revocation from then on refuses that end user's older tokens.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { TENANT_INDEX_MIGRATIONS } from "../../src/tenants/migrations";
import { call } from "../support/api";
import { migrateIndexTo, userTables, writeLegacyIndex } from "../support/legacy-storage";
import { freshTenant } from "../support/tokens";
import { backend, endUser } from "../api/end-users/helpers";

/** The TenantIndex's last version before end-user revocations. */
const INDEX_VERSION_BEFORE_REVOCATIONS = 12;

describe("TenantIndex storage written by the version before end-user revocations", () => {
  it("wakes with its rows and no end user revoked, then revokes an end user's older tokens", async () => {
    const tenantId = freshTenant();
    await runInDurableObject(tenantIndexStub(env, tenantId), async (_instance, state) => {
      migrateIndexTo(state.storage, INDEX_VERSION_BEFORE_REVOCATIONS);
      writeLegacyIndex(state.storage, tenantId, { statements: [] });
      expect(userTables(state.storage)).not.toContain("end_user_revocations");
    });
    await abortAllDurableObjects();

    const index = tenantIndexStub(env, tenantId);
    const admitted = await index.admitRequest(tenantId, { bucket: "sub:end_user:alice", now: Date.now(), endUser: "alice" });
    expect(admitted).toMatchObject({ ok: true });
    expect(admitted.ok && admitted.endUserRevokedBefore).toBeUndefined();
    expect(await index.getSessionSummary(tenantId, "ses_legacy")).toMatchObject({ id: "ses_legacy", created_by: "user-1" });
    await runInDurableObject(index, async (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(TENANT_INDEX_MIGRATIONS));
      expect(userTables(state.storage)).toContain("end_user_revocations");
    });

    const who = await backend(tenantId);
    const alice = await endUser(who, "alice");
    expect((await call("/v1/me", { headers: alice.headers })).status).toBe(200);
    const at = await index.revokeEndUserTokens(tenantId, "alice", Date.now());
    const after = await index.admitRequest(tenantId, { bucket: "sub:end_user:alice", now: Date.now(), endUser: "alice" });
    expect(after.ok && after.endUserRevokedBefore).toBe(at);
    expect((await call("/v1/me", { headers: alice.headers })).status).toBe(401);
    // A cut-off never moves back.
    expect(await index.revokeEndUserTokens(tenantId, "alice", at - 60_000)).toBe(at);
    const still = await index.admitRequest(tenantId, { bucket: "b", now: Date.now(), endUser: "alice" });
    expect(still.ok && still.endUserRevokedBefore).toBe(at);
  });
});
