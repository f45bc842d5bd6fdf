/**
 * `POST /v1/auth/end-user-token`, `GET /v1/me` and `POST /v1/end-users/{subject}/revoke-tokens`:
 * what a minted token is, the input refused with its paths, the tokens an end user cannot mint,
 * revocation at once without refusing later tokens, and the per-tenant minting limit.
 */
import { env } from "cloudflare:test";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { windowStartOf } from "../../../src/tenants/rate-limit";
import { call, callJson, readProblem } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";
import { caller } from "../sessions/helpers";
import { backend, endUser, mint } from "./helpers";

interface Me {
  tenant_id: string;
  sub: string;
  kind: string;
  scopes: string[];
  expires_at: string | null;
  metadata: Record<string, string> | null;
}

async function me(headers: Record<string, string>): Promise<Me> {
  const res = await call("/v1/me", { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Me;
}

describe("POST /v1/auth/end-user-token", () => {
  it("mints a short-lived token for end_user:<subject> with the default scopes", async () => {
    const who = await backend();
    const before = Date.now();
    const res = await mint(who, { subject: "alice@example.com", metadata: { plan: "pro" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as { access_token: string; token_type: string; expires_in: number; subject: string };
    expect(body).toMatchObject({ token_type: "Bearer", expires_in: 900, subject: "alice@example.com" });
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ sub: "end_user:alice@example.com", tenant_id: who.tenantId, scope: "sessions:read sessions:write" });
    expect(claims.exp! - claims.iat!).toBe(900);

    const seen = await me({ Authorization: `Bearer ${body.access_token}` });
    expect(seen).toEqual({
      tenant_id: who.tenantId,
      sub: "end_user:alice@example.com",
      kind: "end_user",
      scopes: ["sessions:read", "sessions:write"],
      expires_at: new Date(claims.exp! * 1000).toISOString(),
      metadata: { plan: "pro" },
    });
    expect(Date.parse(seen.expires_at!)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 899_000);
  });

  it("gives the scopes and lifetime asked, within the caller's", async () => {
    const who = await backend();
    const user = await endUser(who, "u_1", { scopes: ["memory:read", "sessions:read"], ttl_seconds: 60 });
    const seen = await me(user.headers);
    expect(seen.scopes).toEqual(["sessions:read", "memory:read"]);
    expect(Date.parse(seen.expires_at!) - Date.now()).toBeLessThanOrEqual(60_000);
    // tenant:admin implies end_users:issue.
    const admin = await caller(freshTenant(), ["tenant:admin"], "admin");
    expect((await mint(admin, { subject: "u_2", scopes: ["memory:write"] })).status).toBe(201);
  });

  it("refuses bad input with 400 and the field's path", async () => {
    const who = await backend();
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: "has space" }, "body.subject"],
      [{ subject: "" }, "body.subject"],
      [{ subject: "x".repeat(129) }, "body.subject"],
      [{ subject: "a/b" }, "body.subject"],
      [{}, "body.subject"],
      [{ subject: "u", ttl_seconds: 59 }, "body.ttl_seconds"],
      [{ subject: "u", ttl_seconds: 3601 }, "body.ttl_seconds"],
      [{ subject: "u", ttl_seconds: 90.5 }, "body.ttl_seconds"],
      [{ subject: "u", scopes: ["agents:write"] }, "body.scopes.0"],
      [{ subject: "u", scopes: ["sessions:read", "tenant:admin"] }, "body.scopes.1"],
      [{ subject: "u", scopes: [] }, "body.scopes"],
      [{ subject: "u", metadata: { k: 1 } }, "body.metadata.k"],
      [{ subject: "u", extra: true }, "body"],
    ];
    for (const [body, path] of cases) {
      const res = await mint(who, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = await readProblem(res);
      expect(
        problem.errors?.map((error) => error.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("refuses scopes the caller does not hold with 403 and their paths", async () => {
    const narrow = await backend(freshTenant(), ["sessions:read", "sessions:write", "end_users:issue"]);
    const res = await mint(narrow, { subject: "u", scopes: ["sessions:read", "memory:read", "memory:write"] });
    expect(res.status).toBe(403);
    expect((await readProblem(res)).errors?.map((error) => error.path)).toEqual(["body.scopes.1", "body.scopes.2"]);
    // The default scopes too: a key that may only mint holds none of them.
    const mintOnly = await backend(freshTenant(), ["end_users:issue"]);
    const refused = await mint(mintOnly, { subject: "u" });
    expect(refused.status).toBe(403);
    expect((await readProblem(refused)).errors?.map((error) => error.path)).toEqual(["body.scopes", "body.scopes"]);
    // Without end_users:issue at all.
    expect((await mint(await caller(freshTenant(), ["sessions:read", "sessions:write"]), { subject: "u" })).status).toBe(403);
  });

  it("never outlives the caller's own credential", async () => {
    const tenantId = freshTenant();
    const shortLived = {
      tenantId,
      subject: "backend",
      headers: await bearer({
        tenantId,
        scopes: ["sessions:read", "sessions:write", "end_users:issue"],
        subject: "backend",
        expiresIn: 120,
      }),
    };
    const res = await mint(shortLived, { subject: "u", ttl_seconds: 3600 });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { expires_in: number }).expires_in).toBeLessThanOrEqual(120);
  });

  it("refuses an end user's token on the minting and exchange routes with 403", async () => {
    const who = await backend();
    const user = await endUser(who, "alice");
    const again = await mint(user, { subject: "bob" });
    expect(again.status).toBe(403);
    expect((await readProblem(again)).status).toBe(403);
    expect((await call("/v1/auth/token", { method: "POST", headers: user.headers })).status).toBe(403);
    expect((await call(`/v1/end-users/bob/revoke-tokens`, { method: "POST", headers: user.headers })).status).toBe(403);
  });

  it("is refused past the tenant's end_user_tokens_per_minute with 429 and Retry-After", async () => {
    // The limit counts in fixed one-minute windows: a sequence that straddles a window's end
    // (a loaded machine) starts over once, in the next window, where it fits.
    for (let attempt = 0; ; attempt++) {
      const started = Date.now();
      const who = await backend();
      await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { end_user_tokens_per_minute: 3 });
      const minted = [];
      for (let i = 0; i < 3; i++) minted.push((await mint(who, { subject: `u_${i}` })).status);
      const res = await mint(who, { subject: "u_3" });
      const other = await caller(who.tenantId, ["sessions:read", "sessions:write", "end_users:issue"], "other-backend");
      const otherStatus = (await mint(other, { subject: "u_4" })).status;
      if (windowStartOf(started) !== windowStartOf(Date.now()) && attempt === 0) continue;
      expect(minted).toEqual([201, 201, 201]);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get("RateLimit")).toMatch(/end-user-tokens/);
      expect((await readProblem(res)).detail).toMatch(/end_user_tokens_per_minute/);
      // Another backend of the tenant is refused minting too: the window is the tenant's.
      expect(otherStatus).toBe(429);
      // The tenant's other requests go on, and another tenant is untouched.
      expect((await call("/v1/me", { headers: who.headers })).status).toBe(200);
      expect((await mint(await backend(), { subject: "u_5" })).status).toBe(201);
      break;
    }
  });
});

describe("POST /v1/end-users/{subject}/revoke-tokens", () => {
  it("refuses the subject's tokens issued before it with 401, and no one else's, and not later ones", async () => {
    const who = await backend();
    const alice = await endUser(who, "alice");
    const aliceToo = await endUser(who, "alice", { ttl_seconds: 3600 });
    const bob = await endUser(who, "bob");
    // Verified once, so the isolate keeps the token: revocation must still reach it.
    expect((await call("/v1/sessions", { headers: alice.headers })).status).toBe(200);

    const res = await call("/v1/end-users/alice/revoke-tokens", { method: "POST", headers: who.headers });
    expect(res.status).toBe(204);
    for (const revoked of [alice, aliceToo]) {
      const refused = await call("/v1/sessions", { headers: revoked.headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
    }
    expect((await call("/v1/sessions", { headers: bob.headers })).status).toBe(200);
    // A token minted after the revocation works, even within the same second.
    const fresh = await endUser(who, "alice");
    expect((await call("/v1/sessions", { headers: fresh.headers })).status).toBe(200);

    const log = (await (
      await call("/v1/tenant/audit-log?action=end_user.tokens_revoked", {
        headers: (await caller(who.tenantId, ["tenant:admin"], "admin")).headers,
      })
    ).json()) as {
      data: { action: string; target: { type: string; id: string }; actor: { sub: string } }[];
    };
    expect(log.data).toEqual([
      expect.objectContaining({
        action: "end_user.tokens_revoked",
        target: { type: "end_user", id: "alice" },
        actor: expect.objectContaining({ sub: "backend" }),
      }),
    ]);
  });

  it("ends with the API key that minted it, as a token exchanged from the key does", async () => {
    const tenantId = freshTenant();
    const admin = await caller(tenantId, ["tenant:admin"], "admin");
    const created = (await (
      await callJson(
        "/v1/api-keys",
        "POST",
        { name: "backend", scopes: ["sessions:read", "sessions:write", "end_users:issue"] },
        admin.headers,
      )
    ).json()) as { key: string; key_id: string };
    const key = { tenantId, subject: `key:${created.key_id}`, headers: { Authorization: `Bearer ${created.key}` } };
    const alice = await endUser(key, "alice");
    // Through a token exchanged from the key, too.
    const exchanged = (await (await call("/v1/auth/token", { method: "POST", headers: key.headers })).json()) as { access_token: string };
    const bob = await endUser({ tenantId, subject: key.subject, headers: { Authorization: `Bearer ${exchanged.access_token}` } }, "bob");
    expect(decodeJwt(alice.token).source_key_id).toBe(created.key_id);
    for (const user of [alice, bob]) expect(await me(user.headers)).toMatchObject({ kind: "end_user", sub: user.subject });

    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers: admin.headers })).status).toBe(204);
    for (const user of [alice, bob]) expect((await call("/v1/me", { headers: user.headers })).status).toBe(401);
    // A token minted by a JWT has no key to end with.
    const fromJwt = await endUser(await backend(tenantId), "carol");
    expect(decodeJwt(fromJwt.token).source_key_id).toBeUndefined();
    expect((await call("/v1/me", { headers: fromJwt.headers })).status).toBe(200);
  });

  it("refuses a bad subject with 400, and asks for end_users:issue", async () => {
    const who = await backend();
    const bad = await call("/v1/end-users/a%20b/revoke-tokens", { method: "POST", headers: who.headers });
    expect(bad.status).toBe(400);
    expect((await readProblem(bad)).errors?.[0]?.path).toBe("path.subject");
    const plain = await caller(who.tenantId, ["sessions:read", "sessions:write"], "user");
    expect((await call("/v1/end-users/alice/revoke-tokens", { method: "POST", headers: plain.headers })).status).toBe(403);
  });
});

describe("GET /v1/me", () => {
  it("names every kind of credential", async () => {
    const tenantId = freshTenant();
    const user = await me(await bearer({ tenantId, scopes: ["sessions:read"], subject: "carol" }));
    expect(user).toMatchObject({ tenant_id: tenantId, sub: "carol", kind: "user", scopes: ["sessions:read"], metadata: null });
    const platform = await me(await bearer({ tenantId: "platform", scopes: ["platform:admin"], subject: "ops" }));
    expect(platform).toMatchObject({ kind: "platform", sub: "ops" });

    const admin = await caller(tenantId, ["tenant:admin"], "admin");
    const created = (await (
      await callJson("/v1/api-keys", "POST", { name: "backend", scopes: ["sessions:read"] }, admin.headers)
    ).json()) as { key: string; key_id: string };
    const key = await me({ Authorization: `Bearer ${created.key}` });
    expect(key).toMatchObject({
      tenant_id: tenantId,
      sub: `key:${created.key_id}`,
      kind: "api_key",
      scopes: ["sessions:read"],
      expires_at: null,
    });
  });

  it("answers 401 without a credential", async () => {
    expect((await call("/v1/me")).status).toBe(401);
  });
});

describe("tokens that pass for an end user", () => {
  it("never carry more than an end user's scopes, and an identity provider cannot name one", async () => {
    const tenantId = freshTenant();
    // A platform-signed token naming an end user with admin scopes keeps only an end user's.
    const forged = await me(
      await bearer({ tenantId, scopes: ["tenant:admin", "sessions:read"], subject: "end_user:mallory", claims: { iat_ms: Date.now() } }),
    );
    expect(forged).toMatchObject({ kind: "end_user", scopes: ["sessions:read"] });
    // A subject outside the pattern is no principal at all.
    expect((await call("/v1/me", { headers: await bearer({ tenantId, scopes: ["sessions:read"], subject: "end_user:a b" }) })).status).toBe(
      401,
    );
  });
});
