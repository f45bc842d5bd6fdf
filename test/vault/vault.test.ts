/**
 * The vault object over RPC: what it keeps and shows (never a secret), its limits, the lookup at
 * egress (the end user's, else the tenant's), sealing under VAULT_KEYS and the re-encryption
 * pass after a rotation.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { inject } from "vitest";
import { describe, expect, it } from "vitest";
import { vaultStub } from "../../src/objects";
import { generateVaultKey } from "../../src/vault/keys";
import type { PutCredential } from "../../src/vault/types";
import { Vault } from "../../src/vault/vault";
import { freshTenant } from "../support/tokens";

const SECRET = "ghp_secret-token-value-0123456789";

function bearer(subject: string | null, name: string, value = SECRET, max = 50): PutCredential {
  return {
    subject,
    name,
    type: "bearer",
    header: "authorization",
    secrets: { value },
    expiresAt: null,
    tokenUrl: null,
    clientId: null,
    allowedOrigins: ["https://api.github.com"],
    max,
    now: Date.now(),
  };
}

/** Every byte the object stores, as text, to search for a secret. */
async function storedText(tenant: string): Promise<string> {
  return runInDurableObject(vaultStub(env, tenant), (_instance, state) => {
    const rows = state.storage.sql.exec(`SELECT * FROM credentials`).toArray();
    const bytes = rows.map((row) => new TextDecoder().decode(new Uint8Array(row.sealed as ArrayBuffer)));
    return JSON.stringify(rows) + bytes.join("") + JSON.stringify([...state.storage.kv.list()]);
  });
}

describe("the vault", () => {
  it("keeps a credential sealed and shows it without its secret", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const put = await vault.put(tenant, bearer("user_1", "github"));
    expect(put).toMatchObject({ ok: true, value: { name: "github", type: "bearer", header: "authorization", status: "ok" } });
    expect(JSON.stringify(put)).not.toContain(SECRET);
    const listed = await vault.list(tenant, "user_1", Date.now());
    expect(listed).toMatchObject({ ok: true, value: [{ name: "github", allowed_origins: ["https://api.github.com"] }] });
    expect(JSON.stringify(listed)).not.toContain(SECRET);
    expect(await vault.list(tenant, null, Date.now())).toEqual({ ok: true, value: [] });
    expect(await storedText(tenant)).not.toContain(SECRET);
    expect(await vault.remove(tenant, { subject: "user_1", name: "github" })).toEqual({ ok: true, value: null });
    expect(await vault.get(tenant, { subject: "user_1", name: "github" }, Date.now())).toEqual({
      ok: false,
      reason: "credential_not_found",
    });
  });

  it("looks up the end user's credential, else the tenant's, never another end user's", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    await vault.put(tenant, bearer("alice", "github", "alice-token"));
    await vault.put(tenant, bearer(null, "github", "tenant-token"));
    const alice = await vault.obtain(tenant, { subject: "alice", name: "github" });
    expect(alice).toMatchObject({ ok: true, credential: { owner: "end_user", header: "authorization", value: "Bearer alice-token" } });
    const bob = await vault.obtain(tenant, { subject: "bob", name: "github" });
    expect(bob).toMatchObject({ ok: true, credential: { owner: "tenant", value: "Bearer tenant-token" } });
    expect(await vault.obtain(tenant, { subject: null, name: "github" })).toMatchObject({ ok: true, credential: { owner: "tenant" } });
    expect(await vault.obtain(tenant, { subject: "bob", name: "gitlab" })).toMatchObject({
      ok: false,
      code: "credential_missing",
      name: "gitlab",
    });
  });

  it("sends a header credential under its own header's name", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    await vault.put(tenant, { ...bearer(null, "crm"), type: "header", header: "x-api-key", secrets: { value: "crm-key" } });
    expect(await vault.obtain(tenant, { subject: null, name: "crm" })).toMatchObject({
      ok: true,
      credential: { header: "x-api-key", value: "crm-key", refreshable: false },
    });
  });

  it("refuses a new credential past its owner's limit, but replaces one at the limit", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    for (const name of ["a", "b"]) expect((await vault.put(tenant, bearer("u", name, SECRET, 2))).ok).toBe(true);
    expect(await vault.put(tenant, bearer("u", "c", SECRET, 2))).toEqual({ ok: false, reason: "limit_reached", max: 2, of: "end_user" });
    expect((await vault.put(tenant, bearer("u", "a", "new", 2))).ok).toBe(true);
    // Another owner counts apart.
    expect((await vault.put(tenant, bearer("v", "c", SECRET, 2))).ok).toBe(true);
    expect(await vault.put(tenant, bearer(null, "c", SECRET, 0))).toEqual({ ok: false, reason: "limit_reached", max: 0, of: "tenant" });
  });

  it("erases an end user's credentials and no one else's", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    await vault.put(tenant, bearer("alice", "a"));
    await vault.put(tenant, bearer("alice", "b"));
    await vault.put(tenant, bearer("bob", "a"));
    expect(await vault.eraseEndUser(tenant, "alice")).toBe(2);
    expect(await vault.list(tenant, "alice", Date.now())).toEqual({ ok: true, value: [] });
    expect((await vault.list(tenant, "bob", Date.now())) as { value: unknown[] }).toMatchObject({ value: [{ name: "a" }] });
  });

  it("is erased with its tenant", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    await vault.put(tenant, bearer("alice", "a"));
    await vault.purge(tenant);
    expect(await vault.footprint()).toMatchObject({ rows: 0 });
  });

  it("reads what the old key sealed after a rotation, and the pass leaves nothing under it", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const oldKeys = JSON.parse(inject("vaultKeys")) as string[];
    for (let i = 0; i < 120; i++) await vault.put(tenant, bearer(i % 2 === 0 ? null : `u${i % 7}`, `c${i}`, `${SECRET}-${i}`, 500));
    const keyIds = async () =>
      runInDurableObject(vault, (_instance, state) =>
        state.storage.sql.exec<{ key_id: string; n: number }>(`SELECT key_id, COUNT(*) AS n FROM credentials GROUP BY key_id`).toArray(),
      );
    const [before] = await keyIds();
    expect(before!.n).toBe(120);
    const rotated = { ...env, VAULT_KEYS: JSON.stringify([generateVaultKey(), ...oldKeys]) };
    await runInDurableObject(vault, async (_instance, state) => {
      const next = new Vault(state, rotated);
      expect(await next.obtain(tenant, { subject: null, name: "c0" })).toMatchObject({
        ok: true,
        credential: { value: `Bearer ${SECRET}-0` },
      });
      // A write after the rotation is sealed under the new key at once.
      await next.put(tenant, bearer(null, "c0", "rewritten", 500));
      expect(await next.reseal(tenant)).toEqual({ ok: true, value: { resealed: 119, remaining: 0, unreadable: 0 } });
      expect(await next.obtain(tenant, { subject: "u1", name: "c1" })).toMatchObject({
        ok: true,
        credential: { value: `Bearer ${SECRET}-1` },
      });
    });
    const after = await keyIds();
    expect(after).toHaveLength(1);
    expect(after[0]!.key_id).not.toBe(before!.key_id);
    // The old key alone no longer opens anything: the rows are under the new one.
    await runInDurableObject(vault, async (_instance, state) => {
      const old = new Vault(state, { ...env, VAULT_KEYS: JSON.stringify(oldKeys) });
      expect(await old.obtain(tenant, { subject: null, name: "c2" })).toMatchObject({ ok: false, code: "credential_missing" });
    });
  });

  it("re-encrypts from its alarm in batches, resuming where the last one stopped", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const oldKeys = JSON.parse(inject("vaultKeys")) as string[];
    for (let i = 0; i < 120; i++) await vault.put(tenant, bearer(null, `c${i}`, SECRET, 500));
    const rotated = { ...env, VAULT_KEYS: JSON.stringify([generateVaultKey(), ...oldKeys]) };
    await runInDurableObject(vault, async (_instance, state) => {
      const oldId = state.storage.sql.exec<{ key_id: string }>(`SELECT key_id FROM credentials LIMIT 1`).one().key_id;
      const underOld = () => state.storage.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM credentials WHERE key_id = ?`, oldId).one().n;
      const next = new Vault(state, rotated);
      await next.alarm();
      // Names in order as SQLite sorts them: the 50th is c35.
      expect(state.storage.kv.get("reseal_after")).toEqual(["tenant", "c35"]);
      expect(underOld()).toBe(70);
      // A new instance (a restart) goes on from there.
      const restarted = new Vault(state, rotated);
      await restarted.alarm();
      await restarted.alarm();
      expect(state.storage.kv.get("reseal_after")).toBeUndefined();
      const keys = state.storage.sql.exec<{ key_id: string }>(`SELECT DISTINCT key_id FROM credentials`).toArray();
      expect(keys).toHaveLength(1);
      expect(underOld()).toBe(0);
      expect(await restarted.obtain(tenant, { subject: null, name: "c7" })).toMatchObject({
        ok: true,
        credential: { value: `Bearer ${SECRET}` },
      });
    });
  });

  it("answers vault_unavailable without VAULT_KEYS", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    await vault.put(tenant, bearer(null, "github"));
    await runInDurableObject(vault, async (_instance, state) => {
      const bare = new Vault(state, { ...env, VAULT_KEYS: undefined });
      expect(await bare.put(tenant, bearer(null, "x"))).toEqual({ ok: false, reason: "vault_unavailable" });
      expect(await bare.list(tenant, null, Date.now())).toEqual({ ok: false, reason: "vault_unavailable" });
      expect(await bare.obtain(tenant, { subject: null, name: "github" })).toMatchObject({ ok: false, code: "vault_unavailable" });
    });
  });
});
