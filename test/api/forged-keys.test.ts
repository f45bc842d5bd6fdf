/**
 * A forged API key costs the platform no I/O: issued keys carry a tag under the platform's
 * `AUTH_API_KEY_SECRET`, checked before any object is addressed. Keys issued before the tag
 * existed (legacy keys) still work, and are looked up only for tenants the registry knows.
 * Every Durable Object namespace is wrapped to record the calls a request makes.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import { AuthGuard } from "../../src/api/auth-guard";
import type { ApiKeyRecord } from "../../src/auth/api-keys";
import type { Env } from "../../src/env";
import { tenantIndexStub } from "../../src/objects";
import { BASE_URL, callJson, readProblem } from "../support/api";
import { forgedKey, issuedKey, legacyKey } from "../support/api-keys";
import { recordingNamespace } from "../support/recording-namespace";
import { bearer, freshTenant } from "../support/tokens";

/** Every object namespace of the Worker, recording into `calls` as `<binding>.<method>`. */
function recordedEnv(calls: string[]): Env {
  const bindings = ["SESSION", "TENANT_INDEX", "TENANT_REGISTRY", "SCHEDULER"] as const;
  const into = (binding: string) => ({ push: (method: string) => calls.push(`${binding}.${method}`) }) as unknown as string[];
  return { ...env, ...Object.fromEntries(bindings.map((binding) => [binding, recordingNamespace(env[binding], into(binding))])) };
}

/** `GET /v1/tenant` with a credential, through a gateway of its own (`vars` over the test bindings). */
function gateway(vars: Partial<Env> = {}) {
  const app = createApp({ authGuard: new AuthGuard() });
  return async (credential: string): Promise<{ status: number; calls: string[]; detail?: string }> => {
    const calls: string[] = [];
    const ctx = createExecutionContext();
    const res = await app.request(
      `${BASE_URL}/v1/tenant`,
      { headers: { Authorization: `Bearer ${credential}` } },
      { ...recordedEnv(calls), ...vars },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    if (res.status === 500) return { status: res.status, calls, detail: (await readProblem(res)).detail };
    await res.arrayBuffer();
    return { status: res.status, calls };
  };
}

function recordOf(tenantId: string, key: { keyId: string; hash: string }): ApiKeyRecord {
  const at = new Date().toISOString();
  return {
    key_id: key.keyId,
    tenant_id: tenantId,
    name: "backend",
    scopes: ["tenant:admin"],
    hash: key.hash,
    created_by: "admin",
    created_at: at,
    expires_at: null,
    revoked_at: null,
    last_used_at: null,
  };
}

describe("a forged API key", () => {
  it("of an unknown tenant answers 401 without a single Durable Object call", async () => {
    const get = gateway();
    for (let i = 0; i < 20; i++) {
      const { plaintext } = await forgedKey(freshTenant("forged"));
      expect(await get(plaintext)).toEqual({ status: 401, calls: [] });
    }
  });

  it("of a tenant that exists answers 401 without a call either, even with a real key's id", async () => {
    const get = gateway();
    const tenantId = freshTenant();
    const real = await issuedKey(tenantId);
    await tenantIndexStub(env, tenantId).createApiKey(tenantId, recordOf(tenantId, real));
    const forged = await forgedKey(tenantId);
    const sameId = forged.plaintext.replace(/key_[0-9a-f]{24}/, real.keyId);
    expect(await get(forged.plaintext)).toEqual({ status: 401, calls: [] });
    expect(await get(sameId)).toEqual({ status: 401, calls: [] });
  });

  it("in the legacy format, of an unknown tenant, reaches no tenant's index: one registry read, then none", async () => {
    const get = gateway();
    const tenantId = freshTenant("forged");
    expect(await get((await legacyKey(tenantId)).plaintext)).toEqual({ status: 401, calls: ["TENANT_REGISTRY.knows"] });
    expect(await get((await legacyKey(tenantId)).plaintext)).toEqual({ status: 401, calls: [] });
  });
});

describe("API keys that were issued", () => {
  it("a new key, from POST /v1/api-keys, carries its tag and works", async () => {
    const tenantId = freshTenant();
    const res = await callJson(
      "/v1/api-keys",
      "POST",
      { name: "backend", scopes: ["tenant:admin"] },
      await bearer({ tenantId, scopes: ["tenant:admin"] }),
    );
    expect(res.status).toBe(201);
    const { key } = (await res.json()) as { key: string };
    expect(key.split(".")).toHaveLength(4);
    const { status, calls } = await gateway()(key);
    expect(status).toBe(200);
    expect(calls).not.toContain("TENANT_REGISTRY.knows");
  });

  it("a key issued before keys carried a tag still works", async () => {
    const tenantId = freshTenant();
    const old = await legacyKey(tenantId);
    // Stored as the platform stored it then; the tenant's index registers the tenant on first use.
    await tenantIndexStub(env, tenantId).createApiKey(tenantId, recordOf(tenantId, old));
    const get = gateway();
    const first = await get(old.plaintext);
    expect(first.status).toBe(200);
    expect(first.calls.slice(0, 2)).toEqual(["TENANT_REGISTRY.knows", "TENANT_INDEX.admitApiKey"]);
    // The registry's word is kept: the next request goes straight to the tenant's index.
    expect((await get(old.plaintext)).calls[0]).toBe("TENANT_INDEX.admitApiKey");
  });
});

describe("the platform's configuration", () => {
  it("without AUTH_API_KEY_SECRET fails closed: no key is issued, none is accepted, with a clear error and no I/O", async () => {
    const tenantId = freshTenant();
    const unset = { AUTH_API_KEY_SECRET: undefined };
    const { plaintext } = await issuedKey(tenantId);
    const answer = await gateway(unset)(plaintext);
    expect(answer).toMatchObject({ status: 500, calls: [] });
    expect(answer.detail).toContain("AUTH_API_KEY_SECRET");

    const ctx = createExecutionContext();
    const request = new Request(`${BASE_URL}/v1/api-keys`, {
      method: "POST",
      headers: { ...(await bearer({ tenantId, scopes: ["tenant:admin"] })), "Content-Type": "application/json" },
      body: JSON.stringify({ name: "backend", scopes: ["sessions:read"] }),
    });
    const created = await createApp().fetch(request, { ...env, ...unset }, ctx);
    await waitOnExecutionContext(ctx);
    expect(created.status).toBe(500);
    expect((await readProblem(created)).detail).toContain("AUTH_API_KEY_SECRET");
  });

  it("with AUTH_LEGACY_API_KEYS=false refuses every legacy key without any I/O, and keeps issued ones working", async () => {
    const tenantId = freshTenant();
    const old = await legacyKey(tenantId);
    await tenantIndexStub(env, tenantId).createApiKey(tenantId, recordOf(tenantId, old));
    const fresh = await issuedKey(tenantId);
    await tenantIndexStub(env, tenantId).createApiKey(tenantId, recordOf(tenantId, fresh));
    const get = gateway({ AUTH_LEGACY_API_KEYS: "false" });
    expect(await get(old.plaintext)).toEqual({ status: 401, calls: [] });
    expect((await get(fresh.plaintext)).status).toBe(200);
  });
});
