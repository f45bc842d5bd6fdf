import { describe, expect, it } from "vitest";
import { scopesBeyondCreator } from "../../src/api/api-keys/create";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

interface ApiKeyView {
  id: string;
  key_id: string;
  name: string;
  scopes: string[];
  created_by: string;
  expires_at: string | null;
  revoked_at: string | null;
  key?: string;
}

async function adminOf(tenantId: string, subject = "admin-1") {
  return bearer({ tenantId, subject, scopes: ["tenant:admin"] });
}

describe("POST /v1/api-keys", () => {
  it("creates a key whose plaintext is shown once and works as a credential", async () => {
    const tenantId = freshTenant();
    const res = await callJson("/v1/api-keys", "POST", { name: "  billing  ", scopes: ["sessions:read"] }, await adminOf(tenantId));
    expect(res.status).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const created = (await res.json()) as ApiKeyView;
    expect(created).toMatchObject({
      name: "billing",
      scopes: ["sessions:read"],
      created_by: "admin-1",
      revoked_at: null,
      expires_at: null,
    });
    expect(created.key).toMatch(/^ak_/);
    expect(created).not.toHaveProperty("hash");

    const me = await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } });
    expect(me.status).toBe(200);

    const listed = (await (await call("/v1/api-keys", { headers: await adminOf(tenantId) })).json()) as { data: ApiKeyView[] };
    expect(listed.data.map((key) => key.id)).toEqual([created.id]);
    // `key_id` is the same id, kept one version for callers that read it.
    expect(created.key_id).toBe(created.id);
    expect(listed.data[0]!.key_id).toBe(created.id);
    expect(created.id).toMatch(/^key_/);
    expect(listed.data[0]).not.toHaveProperty("key");
    expect(listed.data[0]).not.toHaveProperty("hash");
  });

  it("refuses platform:admin, which no API key may carry, even from a tenant admin's key", async () => {
    const tenantId = freshTenant();
    const keyRes = await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["tenant:admin"] }, await adminOf(tenantId));
    const adminKey = ((await keyRes.json()) as ApiKeyView).key!;
    const res = await callJson("/v1/api-keys", "POST", { name: "k2", scopes: ["platform:admin"] }, { Authorization: `Bearer ${adminKey}` });
    expect(res.status).toBe(400);
    expect((await readProblem(res)).errors?.[0]?.path).toBe("body.scopes.0");
  });

  it("refuses an expiry in the past and accepts one in the future", async () => {
    const tenantId = freshTenant();
    const headers = await adminOf(tenantId);
    const past = await callJson(
      "/v1/api-keys",
      "POST",
      { name: "k", scopes: ["sessions:read"], expires_at: "2001-01-01T00:00:00Z" },
      headers,
    );
    expect(past.status).toBe(400);
    expect((await readProblem(past)).errors).toEqual([{ path: "body.expires_at", message: expect.any(String) }]);

    const future = new Date(Date.now() + 3600_000).toISOString();
    const ok = await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["sessions:read"], expires_at: future }, headers);
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as ApiKeyView).expires_at).toBe(future);
  });

  it("limits the name to 1-100 characters", async () => {
    const headers = await adminOf(freshTenant());
    expect((await callJson("/v1/api-keys", "POST", { name: "x".repeat(101), scopes: ["sessions:read"] }, headers)).status).toBe(400);
    expect((await callJson("/v1/api-keys", "POST", { name: "   ", scopes: ["sessions:read"] }, headers)).status).toBe(400);
    expect((await callJson("/v1/api-keys", "POST", { name: "x".repeat(100), scopes: ["sessions:read"] }, headers)).status).toBe(201);
  });

  it("needs tenant:admin", async () => {
    const tenantId = freshTenant();
    const res = await callJson(
      "/v1/api-keys",
      "POST",
      { name: "k", scopes: ["sessions:read"] },
      await bearer({ tenantId, scopes: ["sessions:write", "sessions:read"] }),
    );
    expect(res.status).toBe(403);
  });
});

describe("scopesBeyondCreator", () => {
  it("returns the requested scopes the creator's own scopes do not grant", () => {
    expect(scopesBeyondCreator({ scopes: ["tenant:admin"] }, ["sessions:read", "sessions:write", "tenant:admin"])).toEqual([]);
    expect(scopesBeyondCreator({ scopes: ["sessions:read"] }, ["sessions:read", "sessions:write"])).toEqual(["sessions:write"]);
    expect(scopesBeyondCreator({ scopes: ["tenant:admin"] }, ["platform:admin"])).toEqual(["platform:admin"]);
  });
});

describe("GET /v1/api-keys", () => {
  it("pages newest first with a cursor and shows only the tenant's own keys", async () => {
    const tenantId = freshTenant();
    const headers = await adminOf(tenantId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await callJson("/v1/api-keys", "POST", { name: `k${i}`, scopes: ["sessions:read"] }, headers);
      ids.push(((await res.json()) as ApiKeyView).key_id);
    }
    await callJson("/v1/api-keys", "POST", { name: "other", scopes: ["sessions:read"] }, await adminOf(freshTenant()));

    const first = (await (await call("/v1/api-keys?limit=2", { headers })).json()) as { data: ApiKeyView[]; next_cursor: string | null };
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = (await (await call(`/v1/api-keys?limit=2&cursor=${first.next_cursor}`, { headers })).json()) as {
      data: ApiKeyView[];
      next_cursor: string | null;
    };
    expect(second.next_cursor).toBeNull();
    expect([...first.data, ...second.data].map((key) => key.key_id).sort()).toEqual([...ids].sort());
  });
});

describe("the ApiKey schema", () => {
  it("names the key's id `id`, and marks `key_id` deprecated in the document", async () => {
    const document = (await (await call("/openapi.json")).json()) as {
      components: { schemas: Record<string, { properties: Record<string, { deprecated?: boolean; description?: string }> }> };
    };
    const { properties } = document.components.schemas.ApiKey!;
    expect(properties.id).toBeDefined();
    expect(properties.id!.deprecated).toBeUndefined();
    expect(properties.key_id).toMatchObject({ deprecated: true, description: expect.stringMatching(/Deprecated.*`id`/) });
  });
});

describe("DELETE /v1/api-keys/{key_id}", () => {
  it("revokes at once and answers 404 for a key it does not know", async () => {
    const tenantId = freshTenant();
    const headers = await adminOf(tenantId);
    const created = (await (
      await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["sessions:read"] }, headers)
    ).json()) as ApiKeyView;

    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers })).status).toBe(204);
    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } })).status).toBe(401);
    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers })).status).toBe(204);
    expect((await call("/v1/api-keys/key_ffffffffffffffffffffffff", { method: "DELETE", headers })).status).toBe(404);
  });

  it("cannot revoke another tenant's key", async () => {
    const owner = freshTenant();
    const created = (await (
      await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["sessions:read"] }, await adminOf(owner))
    ).json()) as ApiKeyView;
    const res = await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers: await adminOf(freshTenant()) });
    expect(res.status).toBe(404);
    expect((await call("/v1/tenant", { headers: { Authorization: `Bearer ${created.key}` } })).status).toBe(200);
  });
});
