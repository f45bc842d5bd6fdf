/**
 * The vault's storage as version 1 wrote it, by its own frozen SQL (not the live store): a
 * sealed row and its key-value entries are read on wake by the current code, its lookup opens
 * the secret, and a write goes on beside it. Later migrations add their steps to this file.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { vaultStub } from "../../src/objects";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { loadVaultKeys, seal } from "../../src/vault/keys";
import { VAULT_MIGRATIONS } from "../../src/vault/migrations";
import { freshTenant } from "../support/tokens";

/** Version 1's tables and one row, as that version wrote them. */
async function writeVaultV1(storage: DurableObjectStorage, tenantId: string): Promise<void> {
  const keys = await loadVaultKeys(inject("vaultKeys"));
  if (!keys.ok) throw new Error(keys.error);
  const sealed = await seal(keys.keys, JSON.stringify({ value: "v1-token" }), "end_user:alice\ngithub");
  storage.transactionSync(() => {
    storage.sql.exec(`CREATE TABLE credentials (
      owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, header TEXT NOT NULL, allowed_origins TEXT NOT NULL,
      expires_at INTEGER, token_url TEXT, client_id TEXT, refreshable INTEGER NOT NULL, refresh_failed INTEGER NOT NULL DEFAULT 0,
      key_id TEXT NOT NULL, sealed BLOB NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (owner, name))`);
    storage.sql.exec(`CREATE INDEX credentials_by_key ON credentials (key_id)`);
    storage.sql.exec(`CREATE TABLE audit_outbox (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, entry TEXT NOT NULL)`);
    storage.sql.exec(
      `INSERT INTO credentials VALUES ('end_user:alice', 'github', 'bearer', 'authorization', '["https://api.github.com"]', NULL, NULL, NULL, 0, 0, ?, ?, 1000, 1000)`,
      sealed.key_id,
      sealed.sealed,
    );
    storage.kv.put("tenant_id", tenantId);
    storage.kv.put("created_at", 1000);
    storage.kv.put("registered", true);
    storage.kv.put("schema_version", 1);
  });
}

describe("Vault storage written by version 1", () => {
  it("is read on wake: listed, looked up with its secret, and written beside", async () => {
    const tenantId = freshTenant("vault");
    await runInDurableObject(vaultStub(env, tenantId), (_instance, state) => writeVaultV1(state.storage, tenantId));
    await abortAllDurableObjects();
    const vault = vaultStub(env, tenantId);
    expect(await vault.list(tenantId, "alice", Date.now())).toMatchObject({
      ok: true,
      value: [{ name: "github", type: "bearer", allowed_origins: ["https://api.github.com"], status: "ok" }],
    });
    expect(await vault.obtain(tenantId, { subject: "alice", name: "github" })).toMatchObject({
      ok: true,
      credential: { owner: "end_user", value: "Bearer v1-token" },
    });
    const put = await vault.put(tenantId, {
      subject: "alice",
      name: "gitlab",
      type: "bearer",
      header: "authorization",
      secrets: { value: "new" },
      expiresAt: null,
      tokenUrl: null,
      clientId: null,
      allowedOrigins: ["https://gitlab.com"],
      max: 2,
      now: Date.now(),
    });
    expect(put.ok).toBe(true);
    await runInDurableObject(vault, (_instance, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(VAULT_MIGRATIONS));
      expect(state.storage.sql.exec(`SELECT COUNT(*) AS n FROM credentials`).one().n).toBe(2);
    });
  });
});
