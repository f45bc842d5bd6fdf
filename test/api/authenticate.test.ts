import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { TenantIndex } from "../../src/tenants/tenant-index";
import type { ApiKeyRecord } from "../../src/auth/api-keys";
import { LAST_USED_RESOLUTION_MS, lastUseDue } from "../../src/api/middleware/authenticate";
import { rateBucket } from "../../src/auth/principal";
import { exchangedKeyStands } from "../../src/auth/api-keys";
import { PROBLEM_TYPE_BASE } from "../../src/api/errors";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant, platformToken } from "../support/tokens";

async function createKey(tenantId: string, scopes: string[]): Promise<{ key: string; key_id: string }> {
  const res = await callJson("/v1/api-keys", "POST", { name: "backend", scopes }, await bearer({ tenantId, scopes: ["tenant:admin"] }));
  expect(res.status).toBe(201);
  return (await res.json()) as { key: string; key_id: string };
}

describe("authentication", () => {
  it("answers no credentials with a 401 problem and WWW-Authenticate: Bearer", async () => {
    const res = await call("/v1/tenant");
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toMatch(/^Bearer\b/);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}unauthorized`, status: 401 });
  });

  it("gives the same 401 for every kind of bad credential", async () => {
    const tenantId = freshTenant();
    const attempts = [
      { Authorization: "Basic dXNlcjpwYXNz" },
      { Authorization: "Bearer not-a-token" },
      { Authorization: `Bearer ${await platformToken({ tenantId, scopes: ["sessions:read"], expiresIn: -3600 })}` },
      { Authorization: `Bearer ${await platformToken({ tenantId, scopes: ["sessions:read"], audience: "someone-else" })}` },
      { Authorization: `Bearer ${await platformToken({ tenantId, scopes: ["sessions:read"], issuer: "https://evil.example" })}` },
      { Authorization: "Bearer ak_YWNtZQ.key_0123456789abcdef01234567.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
    ];
    const details = new Set<string>();
    for (const headers of attempts) {
      const res = await call("/v1/tenant", { headers });
      expect(res.status).toBe(401);
      details.add((await readProblem(res)).detail);
    }
    expect(details.size).toBe(1);
  });

  it("refuses a JWT that lives longer than AUTH_MAX_TOKEN_AGE_SECONDS", async () => {
    const tenantId = freshTenant();
    const tenYears = 10 * 365 * 24 * 60 * 60;
    const res = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:read"], expiresIn: tenYears }) });
    expect(res.status).toBe(401);
    const day = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:read"], expiresIn: 24 * 60 * 60 }) });
    expect(day.status).toBe(200);
  });

  it("admits a valid platform JWT", async () => {
    const tenantId = freshTenant();
    const res = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:read"] }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { tenant_id: string }).tenant_id).toBe(tenantId);
  });

  it("answers 403 when the principal lacks the route's scope", async () => {
    const tenantId = freshTenant();
    const res = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:write"] }) });
    expect(res.status).toBe(403);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}forbidden` });
  });

  it("answers 403 tenant_suspended for a suspended tenant", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).suspend(tenantId);
    const res = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:read"] }) });
    expect(res.status).toBe(403);
    expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}tenant_suspended` });
  });

  it("answers 429 with Retry-After once the tenant's requests_per_minute is used up", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { requests_per_minute: 2 });
    const statuses: number[] = [];
    let limited: Response | undefined;
    // A caller of its own each time: the tenant's window binds, not a caller's share of it.
    for (let i = 0; i < 4; i++) {
      const res = await call("/v1/tenant", { headers: await bearer({ tenantId, subject: `user-${i}`, scopes: ["sessions:read"] }) });
      statuses.push(res.status);
      if (res.status === 429) limited = res;
      else await res.body?.cancel();
    }
    expect(statuses.slice(0, 2)).toEqual([200, 200]);
    expect(limited).toBeDefined();
    expect(Number(limited!.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
    expect(await readProblem(limited!)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}rate_limited`, status: 429 });
  });

  it("admits an API key and records when it was last used", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    const res = await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } });
    expect(res.status).toBe(200);
    await expect
      .poll(async () => (await tenantIndexStub(env, tenantId).findApiKey(tenantId, created.key_id))?.last_used_at ?? null)
      .not.toBeNull();
  });
});

describe("an API key's round trips to the tenant index", () => {
  afterEach(() => vi.restoreAllMocks());

  it("checks the key and admits the request in one call before answering", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    // The index runs in this isolate: its methods can be counted on the prototype.
    const names = Object.getOwnPropertyNames(TenantIndex.prototype).filter((name) => name !== "constructor");
    const spies = new Map(names.map((name) => [name, vi.spyOn(TenantIndex.prototype, name as keyof TenantIndex)]));
    const res = await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } });
    expect(res.status).toBe(200);
    const called = (name: string) => spies.get(name)!.mock.calls.length;
    expect(called("admitApiKey")).toBe(1);
    expect(called("findApiKey")).toBe(0);
    expect(called("admitRequest")).toBe(0);
  });

  it("checks the key behind a token exchanged from it and admits the request in one call", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    const exchange = await callJson("/v1/auth/token", "POST", {}, { Authorization: `Bearer ${created.key}` });
    expect(exchange.status).toBe(200);
    const { access_token } = (await exchange.json()) as { access_token: string };
    const names = Object.getOwnPropertyNames(TenantIndex.prototype).filter((name) => name !== "constructor");
    const spies = new Map(names.map((name) => [name, vi.spyOn(TenantIndex.prototype, name as keyof TenantIndex)]));
    const headers = { Authorization: `Bearer ${access_token}` };
    expect((await call("/v1/tenant", { headers })).status).toBe(200);
    const called = (name: string) => spies.get(name)!.mock.calls.length;
    expect(called("admitExchangedToken")).toBe(1);
    expect(called("findApiKey")).toBe(0);
    expect(called("admitRequest")).toBe(0);
    // Revoking the key ends the token at the next request.
    const admin = await bearer({ tenantId, scopes: ["tenant:admin"] });
    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers: admin })).status).toBe(204);
    expect((await call("/v1/tenant", { headers })).status).toBe(401);
  });

  it("records a key's use at most once a minute, so requests do not wait on the index's writes", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    const touch = vi.spyOn(TenantIndex.prototype, "touchApiKey");
    for (let i = 0; i < 3; i++) {
      const res = await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } });
      expect(res.status).toBe(200);
      // The first use is being recorded in the background: let it land before the next request.
      if (i === 0)
        await expect
          .poll(async () => (await tenantIndexStub(env, tenantId).findApiKey(tenantId, created.key_id))?.last_used_at ?? null)
          .not.toBeNull();
    }
    expect(touch).toHaveBeenCalledTimes(1);
  });
});

describe("lastUseDue", () => {
  const now = Date.parse("2026-01-01T00:10:00Z");
  it("records a first use, a use a minute or more after the recorded one, and one after an unreadable time", () => {
    expect(lastUseDue(null, now)).toBe(true);
    expect(lastUseDue(new Date(now - LAST_USED_RESOLUTION_MS).toISOString(), now)).toBe(true);
    expect(lastUseDue("not a time", now)).toBe(true);
  });
  it("skips a use within the minute", () => {
    expect(lastUseDue(new Date(now - LAST_USED_RESOLUTION_MS + 1).toISOString(), now)).toBe(false);
    expect(lastUseDue(new Date(now).toISOString(), now)).toBe(false);
  });
});

describe("POST /v1/auth/token", () => {
  it("exchanges an API key for a JWT with the key's tenant and scopes", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    const res = await call("/v1/auth/token", { method: "POST", headers: { Authorization: `Bearer ${created.key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const token = (await res.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(token.token_type).toBe("Bearer");
    expect(token.expires_in).toBeGreaterThan(0);

    const tenant = await call("/v1/tenant", { headers: { Authorization: `Bearer ${token.access_token}` } });
    expect(tenant.status).toBe(200);
    expect(((await tenant.json()) as { tenant_id: string }).tenant_id).toBe(tenantId);
  });

  it("refuses to exchange a JWT", async () => {
    const tenantId = freshTenant();
    const res = await call("/v1/auth/token", { method: "POST", headers: await bearer({ tenantId, scopes: ["sessions:read"] }) });
    expect(res.status).toBe(403);
  });

  it("stops an exchanged token as soon as its key is revoked", async () => {
    const tenantId = freshTenant();
    const created = await createKey(tenantId, ["sessions:read"]);
    const exchanged = await call("/v1/auth/token", { method: "POST", headers: { Authorization: `Bearer ${created.key}` } });
    const { access_token } = (await exchanged.json()) as { access_token: string };

    const revoke = await call(`/v1/api-keys/${created.key_id}`, {
      method: "DELETE",
      headers: await bearer({ tenantId, scopes: ["tenant:admin"] }),
    });
    expect(revoke.status).toBe(204);

    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } })).status).toBe(401);
    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${access_token}` } })).status).toBe(401);
  });
});

describe("exchangedKeyStands", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const principal = {
    tenantId: "acme",
    subject: "key:key_0123456789abcdef01234567",
    scopes: [],
    via: "jwt" as const,
    keyId: "key_0123456789abcdef01234567",
  };
  const record: ApiKeyRecord = {
    key_id: "key_0123456789abcdef01234567",
    tenant_id: "acme",
    name: "k",
    scopes: ["sessions:read"],
    hash: "0".repeat(64),
    created_by: "admin",
    created_at: "2025-12-01T00:00:00Z",
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  };

  it.each([
    ["a live key", true, record],
    ["a missing key", false, null],
    ["a revoked key", false, { ...record, revoked_at: "2025-12-31T00:00:00Z" }],
    ["an expired key", false, { ...record, expires_at: "2025-12-31T00:00:00Z" }],
    ["a key expiring later", true, { ...record, expires_at: "2026-02-01T00:00:00Z" }],
    ["an unreadable expiry", false, { ...record, expires_at: "soon" }],
    ["another tenant's key", false, { ...record, tenant_id: "other" }],
  ])("treats %s as valid: %s", (_name, expected, candidate) => {
    expect(exchangedKeyStands(candidate, principal, now)).toBe(expected);
  });
});

describe("rateBucket", () => {
  it("counts a key and the tokens exchanged from it together, apart from JWT subjects", () => {
    const base = { tenantId: "acme", scopes: [] };
    expect(rateBucket({ ...base, subject: "key:key_1", via: "api_key", keyId: "key_1" })).toBe(
      rateBucket({ ...base, subject: "key:key_1", via: "jwt", keyId: "key_1" }),
    );
    expect(rateBucket({ ...base, subject: "key_1", via: "jwt" })).not.toBe(
      rateBucket({ ...base, subject: "x", via: "api_key", keyId: "key_1" }),
    );
  });
});
