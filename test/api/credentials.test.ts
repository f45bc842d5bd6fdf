/**
 * The credential routes: an end user's (end_users:issue) and the tenant's (tenant:admin) put,
 * read, listed and deleted; every bad input a 400 with its path; the owner's limit a 409; 503
 * without VAULT_KEYS; and no response carrying a secret.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import type { AuditEntry } from "../../src/audit/types";
import { tenantIndexStub } from "../../src/objects";
import type { Credential } from "../../src/vault/types";
import { BASE_URL, call, callJson, readProblem } from "../support/api";
import { freshTenant } from "../support/tokens";
import { type Caller, caller } from "./sessions/helpers";

const SECRET = "ghp_0123456789abcdefSECRET";
const BEARER = { type: "bearer", value: SECRET, allowed_origins: ["https://api.github.com"] };

async function backend(tenantId = freshTenant("cred")): Promise<Caller> {
  return caller(tenantId, ["end_users:issue", "tenant:admin"], "backend");
}

describe("credential routes", () => {
  it("puts, reads, lists and deletes an end user's and the tenant's credentials, never showing a secret", async () => {
    const who = await backend();
    const texts: string[] = [];
    const send = async (path: string, method: string, body?: unknown) => {
      const res = body === undefined ? await call(path, { method, headers: who.headers }) : await callJson(path, method, body, who.headers);
      const text = await res.text();
      texts.push(text);
      return { status: res.status, body: text === "" ? null : JSON.parse(text) };
    };
    const put = await send("/v1/end-users/alice/credentials/github", "PUT", BEARER);
    expect(put).toMatchObject({
      status: 200,
      body: { name: "github", type: "bearer", header: "authorization", status: "ok", expires_at: null },
    });
    const oauth = {
      type: "oauth2",
      oauth2: {
        access_token: `${SECRET}-access`,
        refresh_token: `${SECRET}-refresh`,
        expires_at: "2030-01-01T00:00:00Z",
        token_url: "https://github.com/login/oauth/access_token",
        client_id: "cid",
        client_secret: `${SECRET}-client`,
      },
      allowed_origins: ["HTTPS://API.GitHub.com:443", "https://api.github.com"],
    };
    const tenantPut = await send("/v1/tenant/credentials/github", "PUT", oauth);
    expect(tenantPut.body).toMatchObject({
      type: "oauth2",
      allowed_origins: ["https://api.github.com"],
      expires_at: "2030-01-01T00:00:00.000Z",
    });
    await send("/v1/tenant/credentials/crm", "PUT", {
      type: "header",
      header: "X-Api-Key",
      value: SECRET,
      allowed_origins: ["https://crm.example.com"],
    });
    expect((await send("/v1/end-users/alice/credentials/github", "GET")).body).toMatchObject({ name: "github", status: "ok" });
    const tenantList = (await send("/v1/tenant/credentials", "GET")).body as { data: Credential[] };
    expect(tenantList.data.map((c) => [c.name, c.header])).toEqual([
      ["crm", "x-api-key"],
      ["github", "authorization"],
    ]);
    expect(((await send("/v1/end-users/alice/credentials", "GET")).body as { data: Credential[] }).data).toHaveLength(1);
    expect(((await send("/v1/end-users/bob/credentials", "GET")).body as { data: Credential[] }).data).toEqual([]);
    expect((await send("/v1/end-users/alice/credentials/github", "DELETE")).status).toBe(204);
    expect((await send("/v1/end-users/alice/credentials/github", "GET")).status).toBe(404);
    expect((await send("/v1/end-users/alice/credentials/github", "DELETE")).status).toBe(404);
    for (const text of texts) expect(text).not.toContain(SECRET);

    const log = (await tenantIndexStub(env, who.tenantId).listAuditLog(who.tenantId, { limit: 50, cursor: null })) as unknown as {
      data: AuditEntry[];
    };
    expect(log.data.map((e) => e.action).sort()).toEqual(["credential.deleted", "credential.put", "credential.put", "credential.put"]);
    expect(log.data.find((e) => e.target.id === "end_user:alice/github" && e.action === "credential.put")).toMatchObject({
      actor: { sub: "backend" },
      details: { name: "github", owner: "end_user", subject: "alice", allowed_origins: ["https://api.github.com"] },
    });
    expect(JSON.stringify(log)).not.toContain(SECRET);
  });

  it("answers every bad input with a 400 naming its path", async () => {
    const who = await backend();
    const bad = async (body: unknown, path = "/v1/end-users/alice/credentials/github") => {
      const res = await callJson(path, "PUT", body, who.headers);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = await readProblem(res);
      expect(JSON.stringify(problem)).not.toContain(SECRET);
      return (problem.errors ?? []).map((e) => e.path);
    };
    expect(await bad({ ...BEARER, type: "basic" })).toContain("body.type");
    expect(await bad({ ...BEARER, value: "x".repeat(8 * 1024 + 1) })).toContain("body.value");
    expect(await bad({ ...BEARER, value: "é".repeat(4 * 1024 + 1) })).toContain("body.value");
    expect(await bad({ ...BEARER, allowed_origins: ["https://*.github.com"] })).toEqual(["body.allowed_origins.0"]);
    expect(await bad({ ...BEARER, allowed_origins: ["https://api.github.com", "*"] })).toEqual(["body.allowed_origins.1"]);
    expect(await bad({ ...BEARER, allowed_origins: ["ftp://api.github.com"] })).toEqual(["body.allowed_origins.0"]);
    expect(await bad({ ...BEARER, allowed_origins: ["https://api.github.com/path"] })).toEqual(["body.allowed_origins.0"]);
    expect(await bad({ ...BEARER, allowed_origins: [] })).toContain("body.allowed_origins");
    expect(
      await bad({ type: "oauth2", oauth2: { access_token: "a", refresh_token: SECRET }, allowed_origins: ["https://a.example.com"] }),
    ).toEqual(["body.oauth2.token_url"]);
    expect(
      await bad({
        type: "oauth2",
        oauth2: { access_token: "a", token_url: "ftp://auth.example.com/token" },
        allowed_origins: ["https://a.example.com"],
      }),
    ).toEqual(["body.oauth2.token_url"]);
    expect(
      await bad({
        type: "oauth2",
        oauth2: { access_token: "a", expires_at: "1969-12-31T23:59:59Z" },
        allowed_origins: ["https://a.example.com"],
      }),
    ).toEqual(["body.oauth2.expires_at"]);
    expect(await bad({ type: "header", value: SECRET, allowed_origins: ["https://a.example.com"] })).toEqual(["body.header"]);
    expect(await bad({ type: "header", header: "Host", value: SECRET, allowed_origins: ["https://a.example.com"] })).toContain(
      "body.header",
    );
    for (const header of [
      "X-Webhook-Signature",
      "x-webhook-timestamp",
      "Idempotency-Key",
      "traceparent",
      "Mcp-Session-Id",
      "mcp-protocol-version",
    ])
      expect(await bad({ type: "header", header, value: SECRET, allowed_origins: ["https://a.example.com"] }), header).toEqual([
        "body.header",
      ]);
    expect(await bad({ ...BEARER, value: "a\r\nX-Injected: 1" })).toContain("body.value");
    expect(await bad({ ...BEARER, oauth2: { access_token: "a" } })).toContain("body.oauth2");
    expect(await bad(BEARER, "/v1/end-users/alice/credentials/GitHub")).toContain("path.name");
    expect(await bad(BEARER, "/v1/tenant/credentials/" + "a".repeat(65))).toContain("path.name");
    expect(await bad({ ...BEARER, extra: 1 })).not.toHaveLength(0);
  });

  it("refuses a credential past the owner's limit with a 409, and replaces one at the limit", async () => {
    const who = await backend();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, {
      max_credentials_per_end_user: 2,
      max_credentials_per_tenant: 1,
    });
    for (const name of ["a", "b"])
      expect((await callJson(`/v1/end-users/alice/credentials/${name}`, "PUT", BEARER, who.headers)).status).toBe(200);
    const over = await callJson("/v1/end-users/alice/credentials/c", "PUT", BEARER, who.headers);
    expect(over.status).toBe(409);
    expect((await readProblem(over)).detail).toContain("max_credentials_per_end_user");
    expect((await callJson("/v1/end-users/alice/credentials/a", "PUT", BEARER, who.headers)).status).toBe(200);
    expect((await callJson("/v1/end-users/bob/credentials/c", "PUT", BEARER, who.headers)).status).toBe(200);
    expect((await callJson("/v1/tenant/credentials/a", "PUT", BEARER, who.headers)).status).toBe(200);
    expect((await callJson("/v1/tenant/credentials/b", "PUT", BEARER, who.headers)).status).toBe(409);
  });

  it("keeps each route to its scope and each tenant to its own vault", async () => {
    const who = await backend();
    await callJson("/v1/tenant/credentials/github", "PUT", BEARER, who.headers);
    const issuer = await caller(who.tenantId, ["end_users:issue"]);
    expect((await callJson("/v1/tenant/credentials/github", "PUT", BEARER, issuer.headers)).status).toBe(403);
    expect((await call("/v1/tenant/credentials", { headers: issuer.headers })).status).toBe(403);
    const writer = await caller(who.tenantId, ["sessions:read", "sessions:write"]);
    expect((await callJson("/v1/end-users/alice/credentials/github", "PUT", BEARER, writer.headers)).status).toBe(403);
    expect((await call("/v1/end-users/alice/credentials", { headers: writer.headers })).status).toBe(403);
    const other = await backend();
    expect((await call("/v1/tenant/credentials/github", { headers: other.headers })).status).toBe(404);
  });

  it("answers 503 vault_unavailable without VAULT_KEYS", async () => {
    const who = await backend();
    for (const [path, method] of [
      ["/v1/tenant/credentials/github", "PUT"],
      ["/v1/tenant/credentials", "GET"],
      ["/v1/end-users/alice/credentials/github", "GET"],
      ["/v1/end-users/alice/credentials/github", "DELETE"],
    ] as const) {
      const ctx = createExecutionContext();
      const request = new Request(`${BASE_URL}${path}`, {
        method,
        headers: { ...who.headers, "Content-Type": "application/json" },
        ...(method === "PUT" ? { body: JSON.stringify(BEARER) } : {}),
      });
      const res = await createApp().fetch(request, { ...env, VAULT_KEYS: undefined }, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status, `${method} ${path}`).toBe(503);
      expect(await readProblem(res)).toMatchObject({ code: "vault_unavailable" });
    }
  });
});
