/**
 * OAuth2 refresh in the vault against a real local token endpoint (the mock server's webhook
 * queue): one token request however many callers wait, the new tokens stored sealed, and a
 * refused grant marking the credential `refresh_failed` with its audit entry.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub, vaultStub } from "../../src/objects";
import type { AuditEntry } from "../../src/audit/types";
import { describeCredentialFailure, type CredentialFailure } from "../../src/egress/credential-fetch";
import type { PutCredential } from "../../src/vault/types";
import type { Vault } from "../../src/vault/vault";
import { type HookStep, mockHook, uniqueKey } from "../support/mock-client";
import { freshTenant } from "../support/tokens";

function oauth2(tokenUrl: string, expiresAt: number, subject: string | null = "alice"): PutCredential {
  return {
    subject,
    name: "github",
    type: "oauth2",
    header: "authorization",
    secrets: { access_token: "old-access", refresh_token: "refresh-1", client_secret: "client-secret" },
    expiresAt,
    tokenUrl,
    clientId: "client-1",
    allowedOrigins: ["https://api.github.com"],
    max: 50,
    now: Date.now(),
  };
}

describe("oauth2 refresh", () => {
  it("refreshes an expired token once for 5 concurrent lookups and stores the new tokens", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    // Slow enough that every lookup arrives while the first refresh waits for its answer.
    await endpoint.script({
      status: 200,
      delay_ms: 300,
      body: { access_token: "new-access", refresh_token: "refresh-2", token_type: "bearer", expires_in: 3600 },
    });
    await vault.put(tenant, oauth2(endpoint.url, Date.now() - 1000));
    const answers = await Promise.all(Array.from({ length: 5 }, () => vault.obtain(tenant, { subject: "alice", name: "github" })));
    for (const answer of answers) expect(answer).toMatchObject({ ok: true, credential: { value: "Bearer new-access", refreshable: true } });
    const requests = await endpoint.requests();
    expect(requests).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(requests[0]!.body_text))).toEqual({
      grant_type: "refresh_token",
      refresh_token: "refresh-1",
      client_id: "client-1",
      client_secret: "client-secret",
    });
    expect(requests[0]!.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const shown = await vault.get(tenant, { subject: "alice", name: "github" }, Date.now());
    expect(shown).toMatchObject({ ok: true, value: { status: "ok" } });
    const expiresAt = Date.parse((shown as { value: { expires_at: string } }).value.expires_at);
    expect(expiresAt).toBeGreaterThan(Date.now() + 3_500_000);

    // The rotated refresh token is the one the next refresh sends.
    await endpoint.script({ status: 200, delay_ms: 300, body: { access_token: "third-access", expires_in: 3600 } });
    const rejected = await Promise.all(
      Array.from({ length: 5 }, () => vault.refresh(tenant, { subject: "alice", name: "github", rejected: "Bearer new-access" })),
    );
    for (const answer of rejected) expect(answer).toMatchObject({ ok: true, credential: { value: "Bearer third-access" } });
    const all = await endpoint.requests();
    expect(all).toHaveLength(2);
    expect(new URLSearchParams(all[1]!.body_text).get("refresh_token")).toBe("refresh-2");
    // A caller whose rejected value was replaced meanwhile gets the new one with no request.
    expect(await vault.refresh(tenant, { subject: "alice", name: "github", rejected: "Bearer old-access" })).toMatchObject({
      ok: true,
      credential: { value: "Bearer third-access" },
    });
    expect(await endpoint.requests()).toHaveLength(2);
  });

  it("joins callers that arrive in the same turn, while the first is still opening the secrets", async () => {
    const tenant = freshTenant("vault");
    const stub = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    await endpoint.script({ status: 200, body: { access_token: "new-access", refresh_token: "refresh-2", expires_in: 3600 } });
    await stub.put(tenant, oauth2(endpoint.url, Date.now() - 1000));
    // In the object itself, so no call's delivery separates them: each reaches the refresh's
    // check before any has finished decrypting.
    const answers = await runInDurableObject(stub, (vault: Vault) =>
      Promise.all(Array.from({ length: 3 }, () => vault.obtain(tenant, { subject: "alice", name: "github" }))),
    );
    for (const answer of answers) expect(answer).toMatchObject({ ok: true, credential: { value: "Bearer new-access" } });
    expect(await endpoint.requests()).toHaveLength(1);
  });

  it("marks a credential whose refresh token is refused refresh_failed, audited, and asks no more", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    await endpoint.script({ status: 400, body: { error: "invalid_grant", error_description: "revoked" } });
    await vault.put(tenant, oauth2(endpoint.url, Date.now() - 1000, null));
    const answers = await Promise.all(Array.from({ length: 3 }, () => vault.obtain(tenant, { subject: "bob", name: "github" })));
    for (const answer of answers) {
      expect(answer).toMatchObject({ ok: false, code: "credential_refresh_failed", name: "github", owner: "tenant" });
      expect(describeCredentialFailure(answer as CredentialFailure)).toContain("the user must reconnect it");
    }
    expect(await vault.obtain(tenant, { subject: null, name: "github" })).toMatchObject({ ok: false, code: "credential_refresh_failed" });
    expect(await endpoint.requests()).toHaveLength(1);
    expect(await vault.get(tenant, { subject: null, name: "github" }, Date.now())).toMatchObject({
      ok: true,
      value: { status: "refresh_failed" },
    });
    const log = (await tenantIndexStub(env, tenant).listAuditLog(tenant, { limit: 10, cursor: null })) as unknown as { data: AuditEntry[] };
    const entry = log.data.find((e) => e.action === "credential.refresh_failed");
    expect(entry).toMatchObject({ target: { type: "credential", id: "tenant/github" }, details: { name: "github", owner: "tenant" } });
    expect(JSON.stringify(log)).not.toMatch(/refresh-1|old-access|client-secret/);
    // Connecting it again clears the mark.
    await vault.put(tenant, oauth2(endpoint.url, Date.now() + 3_600_000, null));
    expect(await vault.obtain(tenant, { subject: null, name: "github" })).toMatchObject({
      ok: true,
      credential: { value: "Bearer old-access" },
    });
  });

  it("does not mark the credential when the endpoint is down, and says to try later", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    await endpoint.script({ status: 503 });
    await vault.put(tenant, oauth2(endpoint.url, Date.now() - 1000));
    const answer = await vault.obtain(tenant, { subject: "alice", name: "github" });
    expect(answer).toMatchObject({ ok: false, code: "credential_refresh_failed", detail: expect.stringContaining("try again later") });
    // Nothing tells the model (or the user) to reconnect a credential that is still good.
    expect(describeCredentialFailure(answer as CredentialFailure)).not.toContain("reconnect");
    expect(await vault.get(tenant, { subject: "alice", name: "github" }, Date.now())).toMatchObject({ ok: true, value: { status: "ok" } });
  });

  it("keeps the credential through every failure that is not the grant's refusal", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    const passing: HookStep[] = [
      { status: 302, headers: { location: "https://auth.example.com/elsewhere" } },
      { status: 408 },
      { status: 429 },
      { status: 200, body: "<html>maintenance</html>", headers: { "content-type": "text/html" } },
      { status: 200, body: { token_type: "bearer" } },
    ];
    await endpoint.script(...passing);
    await vault.put(tenant, oauth2(endpoint.url, Date.now() - 1000));
    for (const step of passing) {
      expect(await vault.obtain(tenant, { subject: "alice", name: "github" }), JSON.stringify(step)).toMatchObject({
        ok: false,
        code: "credential_refresh_failed",
      });
      expect(await vault.get(tenant, { subject: "alice", name: "github" }, Date.now())).toMatchObject({
        ok: true,
        value: { status: "ok" },
      });
    }
    expect(await endpoint.requests()).toHaveLength(passing.length);
    // A token URL the guard refuses is the deployment's policy, not the grant's answer.
    await vault.put(tenant, { ...oauth2("ftp://auth.example.com/token", Date.now() - 1000), name: "refused" });
    expect(await vault.obtain(tenant, { subject: "alice", name: "refused" })).toMatchObject({
      ok: false,
      code: "credential_refresh_failed",
    });
    expect(await vault.get(tenant, { subject: "alice", name: "refused" }, Date.now())).toMatchObject({ ok: true, value: { status: "ok" } });
  });

  it("audits the endpoint's error only as an OAuth code, never its free text", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const endpoint = mockHook(uniqueKey("token"));
    await endpoint.script(
      { status: 400, body: { error: "Token sk-live-ECHOED <b>rejected</b>" } },
      { status: 200, body: { error: "invalid_grant" } },
    );
    await vault.put(tenant, oauth2(endpoint.url, Date.now() - 1000));
    await vault.put(tenant, { ...oauth2(endpoint.url, Date.now() - 1000), name: "second" });
    expect(await vault.obtain(tenant, { subject: "alice", name: "github" })).toMatchObject({
      ok: false,
      code: "credential_refresh_failed",
    });
    expect(await vault.obtain(tenant, { subject: "alice", name: "second" })).toMatchObject({
      ok: false,
      code: "credential_refresh_failed",
    });
    for (const name of ["github", "second"])
      expect(await vault.get(tenant, { subject: "alice", name }, Date.now())).toMatchObject({
        ok: true,
        value: { status: "refresh_failed" },
      });
    const log = (await tenantIndexStub(env, tenant).listAuditLog(tenant, { limit: 10, cursor: null })) as unknown as { data: AuditEntry[] };
    const reasons = log.data.filter((e) => e.action === "credential.refresh_failed").map((e) => (e.details as { reason?: string }).reason);
    expect(reasons.sort()).toEqual([
      "the token endpoint refused the refresh (200 invalid_grant)",
      "the token endpoint refused the refresh (400 unknown)",
    ]);
    expect(JSON.stringify(log)).not.toMatch(/ECHOED|<b>/);
  });

  it("answers an expired token without a refresh token as missing, shown expired", async () => {
    const tenant = freshTenant("vault");
    const vault = vaultStub(env, tenant);
    const put = oauth2("https://auth.example.com/token", Date.now() - 1000);
    await vault.put(tenant, { ...put, secrets: { access_token: "old-access" }, tokenUrl: null });
    expect(await vault.obtain(tenant, { subject: "alice", name: "github" })).toMatchObject({ ok: false, code: "credential_missing" });
    expect(await vault.get(tenant, { subject: "alice", name: "github" }, Date.now())).toMatchObject({
      ok: true,
      value: { status: "expired" },
    });
  });
});
