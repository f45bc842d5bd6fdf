import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { type ApiKeyRecord, hashApiKeySecret } from "../../src/auth/api-keys";
import { issuedKey } from "../support/api-keys";
import { BASE_MS, expectIndexRejects, freshTenant, indexOf } from "./helpers";

async function newRecord(tenantId: string, createdMs: number, name = "backend"): Promise<ApiKeyRecord> {
  const key = await issuedKey(tenantId);
  return {
    key_id: key.keyId,
    tenant_id: tenantId,
    name,
    scopes: ["sessions:read", "sessions:write"],
    hash: key.hash,
    created_by: "admin-1",
    created_at: new Date(createdMs).toISOString(),
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  };
}

describe("API keys", () => {
  it("looks up a key of a tenant never seen without binding or registering it", async () => {
    const tenantId = freshTenant();
    expect(await indexOf(tenantId).findApiKey(tenantId, "key_000000000000000000000000")).toBeNull();
    const listed = await env.TENANT_REGISTRY.get(env.TENANT_REGISTRY.idFromName("registry")).list({ limit: 200, cursor: null });
    expect(listed.data.map((t) => t.tenant_id)).not.toContain(tenantId);
    // The index is still free for its tenant: binding happens on the first authenticated use.
    expect(await indexOf(tenantId).counts(tenantId)).toBeDefined();
  });

  it("finds a created key with its hash, and null for an unknown id", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const record = await newRecord(tenantId, BASE_MS);
    await index.createApiKey(tenantId, record);
    expect(await index.findApiKey(tenantId, record.key_id)).toEqual(record);
    expect(await index.findApiKey(tenantId, "key_000000000000000000000000")).toBeNull();
  });

  it("lists keys newest first, page by page, without their hashes", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const records: ApiKeyRecord[] = [];
    for (let i = 0; i < 7; i++) records.push(await newRecord(tenantId, BASE_MS + i * 1000, `key ${i}`));
    for (const record of records) await index.createApiKey(tenantId, record);

    const listed: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: unknown[]; next_cursor: string | null } = await index.listApiKeys(tenantId, { limit: 3, cursor });
      listed.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);

    const expected = [...records].reverse().map(({ hash: _hash, ...rest }) => rest);
    expect(listed).toEqual(expected);
    for (const item of listed) expect(item).not.toHaveProperty("hash");
  });

  it("revokes a key once, keeping the first revocation time, and answers false for an unknown key", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const record = await newRecord(tenantId, BASE_MS);
    await index.createApiKey(tenantId, record);
    expect(await index.revokeApiKey(tenantId, record.key_id, BASE_MS + 5_000)).toBe(true);
    expect(await index.revokeApiKey(tenantId, record.key_id, BASE_MS + 9_000)).toBe(true);
    expect((await index.findApiKey(tenantId, record.key_id))?.revoked_at).toBe(new Date(BASE_MS + 5_000).toISOString());
    expect(await index.revokeApiKey(tenantId, "key_000000000000000000000000", BASE_MS)).toBe(false);
  });

  it("records the last use of a key", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const record = await newRecord(tenantId, BASE_MS);
    await index.createApiKey(tenantId, record);
    expect(await index.touchApiKey(tenantId, record.key_id, BASE_MS + 42_000)).toBe(true);
    expect((await index.findApiKey(tenantId, record.key_id))?.last_used_at).toBe(new Date(BASE_MS + 42_000).toISOString());
    expect(await index.touchApiKey(tenantId, "key_000000000000000000000000", BASE_MS)).toBe(false);
  });

  /** A tenant with three keys: one standing, one revoked, one expired a second after `BASE_MS`. */
  async function standingRevokedAndExpired() {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    const record = await newRecord(tenantId, BASE_MS);
    const revoked = await newRecord(tenantId, BASE_MS, "revoked");
    const expired = { ...(await newRecord(tenantId, BASE_MS, "expired")), expires_at: new Date(BASE_MS + 1_000).toISOString() };
    for (const r of [record, revoked, expired]) await index.createApiKey(tenantId, r);
    await index.revokeApiKey(tenantId, revoked.key_id, BASE_MS);
    return { tenantId, index, record, revoked, expired };
  }

  it("admits a standing key's request in the same call as its lookup, and no other", async () => {
    const { tenantId, index, record, revoked, expired } = await standingRevokedAndExpired();
    const now = BASE_MS + 2_000;
    const input = (r: ApiKeyRecord) => ({ secretHash: r.hash, bucket: `key:${r.key_id}`, now });

    const admitted = await index.admitApiKey(tenantId, record.key_id, input(record));
    expect(admitted.record).toEqual(record);
    expect(admitted.admission).toMatchObject({ ok: true, suspended: false });
    // Found, but not standing: the record comes back for the gateway's verdict, no admission.
    const wrongSecret = await index.admitApiKey(tenantId, record.key_id, {
      ...input(record),
      secretHash: await hashApiKeySecret("not the secret"),
    });
    expect(wrongSecret).toEqual({ record, admission: null });
    expect((await index.admitApiKey(tenantId, revoked.key_id, input(revoked))).admission).toBeNull();
    expect((await index.admitApiKey(tenantId, expired.key_id, input(expired))).admission).toBeNull();
    expect(await index.admitApiKey(tenantId, "key_000000000000000000000000", input(record))).toEqual({ record: null, admission: null });
  });

  it("admits the request of a token exchanged from a standing key in the same call as the key's lookup, and no other", async () => {
    const { tenantId, index, record, revoked, expired } = await standingRevokedAndExpired();
    const input = (r: ApiKeyRecord) => ({ bucket: `key:${r.key_id}`, now: BASE_MS + 2_000 });

    const admitted = await index.admitExchangedToken(tenantId, record.key_id, input(record));
    expect(admitted.record).toEqual(record);
    expect(admitted.admission).toMatchObject({ ok: true, suspended: false });
    expect((await index.admitExchangedToken(tenantId, revoked.key_id, input(revoked))).admission).toBeNull();
    expect((await index.admitExchangedToken(tenantId, expired.key_id, input(expired))).admission).toBeNull();
    expect(await index.admitExchangedToken(tenantId, "key_000000000000000000000000", input(record))).toEqual({
      record: null,
      admission: null,
    });
  });

  it("spends no rate budget on a key presented with the wrong secret", async () => {
    const tenantId = freshTenant();
    const index = indexOf(tenantId);
    await index.setLimitOverrides(tenantId, { requests_per_minute: 1 });
    const record = await newRecord(tenantId, BASE_MS);
    await index.createApiKey(tenantId, record);
    const input = { secretHash: record.hash, bucket: `key:${record.key_id}`, now: BASE_MS };
    const wrong = { ...input, secretHash: await hashApiKeySecret("a guess") };
    for (let i = 0; i < 3; i++) expect((await index.admitApiKey(tenantId, record.key_id, wrong)).admission).toBeNull();
    expect((await index.admitApiKey(tenantId, record.key_id, input)).admission).toMatchObject({ ok: true });
    // The budget of one request a minute is spent by the request that was let in.
    expect((await index.admitApiKey(tenantId, record.key_id, input)).admission).toMatchObject({ ok: false, code: "rate_limited" });
  });

  it("refuses a record of another tenant, a reused key id and unknown scopes", async () => {
    const tenantId = freshTenant();
    const record = await newRecord(tenantId, BASE_MS);
    await indexOf(tenantId).createApiKey(tenantId, record);
    const other = await newRecord(freshTenant(), BASE_MS);
    await expectIndexRejects(tenantId, (index) => index.createApiKey(tenantId, other), /tenant_id/);
    await expectIndexRejects(tenantId, (index) => index.createApiKey(tenantId, { ...record, name: "again" }), /already exists/);
    const badScopes = { ...(await newRecord(tenantId, BASE_MS)), scopes: ["root"] } as unknown as ApiKeyRecord;
    await expectIndexRejects(tenantId, (index) => index.createApiKey(tenantId, badScopes), /scopes/);
  });
});
