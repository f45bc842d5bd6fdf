/** The pure rules of end users: which scopes a caller may give, revocation, the kind of a principal, the routes, memory's reach. */
import type { JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { AuthFailure } from "../../src/auth/failure";
import { type JwtDeps, verifyJwt } from "../../src/auth/jwt";
import { type PlatformKeys, signAccessToken } from "../../src/auth/platform-keys";
import { AUTH_CONFIG, type ExternalIdp, makeExternalIdp, makePlatformKeys, NOW, NOW_S, signToken } from "./fixtures";
import { endUserMayCall, withoutDefinition } from "../../src/api/middleware/end-user-gate";
import { END_USER_ROUTES } from "../../src/api/end-users/allowed-routes";
import { endUserTokenRevoked, ungrantableScopes } from "../../src/auth/end-user-token";
import { hasScope, type Principal, principalKind } from "../../src/auth/principal";
import { confineGrant, endUserNamespace, memoryReachOf, reachAllows } from "../../src/memory/end-user";

const base: Principal = { tenantId: "acme", subject: "s", scopes: [], via: "jwt" };

describe("end_users:issue", () => {
  it("is implied by tenant:admin and by platform:admin, and implies nothing else", () => {
    expect(hasScope({ scopes: ["tenant:admin"] }, "end_users:issue")).toBe(true);
    expect(hasScope({ scopes: ["platform:admin"] }, "end_users:issue")).toBe(true);
    expect(hasScope({ scopes: ["sessions:write"] }, "end_users:issue")).toBe(false);
    expect(hasScope({ scopes: ["end_users:issue"] }, "sessions:read")).toBe(false);
  });
});

describe("ungrantableScopes", () => {
  it.each([
    [["sessions:read", "sessions:write"], ["sessions:read"], []],
    [["sessions:read"], ["sessions:read", "sessions:write"], [{ index: 1, scope: "sessions:write" }]],
    [["tenant:admin"], ["memory:read", "memory:write"], []],
    [["tenant:admin"], ["agents:write"], [{ index: 0, scope: "agents:write" }]],
    [["tenant:admin"], ["tenant:admin"], [{ index: 0, scope: "tenant:admin" }]],
    [["end_users:issue"], ["sessions:read"], [{ index: 0, scope: "sessions:read" }]],
  ] as const)("a caller with %j asking %j cannot give %j", (held, asked, refused) => {
    expect(ungrantableScopes({ scopes: [...held] }, asked)).toEqual(refused);
  });
});

describe("endUserTokenRevoked", () => {
  it.each([
    [{ endUser: "a", issuedAt: 1000 }, undefined, false],
    [{ endUser: "a", issuedAt: 1000 }, 999, false],
    [{ endUser: "a", issuedAt: 1000 }, 1000, true],
    [{ endUser: "a", issuedAt: 1000 }, 5000, true],
    [{ endUser: "a" }, 5000, true],
    [{ issuedAt: 1000 }, 5000, false],
  ] as const)("%j with cut-off %s: %s", (principal, cutOff, revoked) => {
    expect(endUserTokenRevoked(principal, cutOff)).toBe(revoked);
  });
});

describe("principalKind", () => {
  it("names each kind of credential", () => {
    expect(principalKind({ ...base, endUser: "a" })).toBe("end_user");
    expect(principalKind({ ...base, keyId: "key_1", via: "api_key" })).toBe("api_key");
    expect(principalKind({ ...base, keyId: "key_1" })).toBe("api_key");
    expect(principalKind({ ...base, scopes: ["platform:admin"] })).toBe("platform");
    expect(principalKind({ ...base, scopes: ["tenant:admin"] })).toBe("user");
  });
});

describe("endUserMayCall", () => {
  it("allows the listed routes with any parameter, and nothing else", () => {
    expect(endUserMayCall("GET", "/v1/sessions/ses_abc")).toBe(true);
    expect(endUserMayCall("head", "/v1/sessions/ses_abc")).toBe(true);
    expect(endUserMayCall("POST", "/v1/sessions/ses_abc/tool-calls/toolu_1/approve")).toBe(true);
    expect(endUserMayCall("GET", "/v1/sessions/ses_abc/export")).toBe(false);
    expect(endUserMayCall("GET", "/v1/sessions/ses_abc/extra/x")).toBe(false);
    expect(endUserMayCall("GET", "/v1/agents")).toBe(false);
    expect(endUserMayCall("GET", "/v1/agents/agt_1")).toBe(false);
    expect(endUserMayCall("PUT", "/v1/sessions/ses_abc")).toBe(false);
    expect(endUserMayCall("GET", "/v1/tenant")).toBe(false);
    expect(END_USER_ROUTES.every((route) => /^(GET|POST|PUT|PATCH|DELETE) \/v1\//.test(route))).toBe(true);
  });
});

describe("an end user's memory", () => {
  it("lives under users.<subject>, and a subject that is not one segment has none", () => {
    expect(endUserNamespace("u_42")).toEqual(["users", "u_42"]);
    expect(endUserNamespace("alice@example.com")).toBeNull();
    expect(endUserNamespace("x".repeat(65))).toBeNull();
    expect(memoryReachOf("end_user:u_42")).toEqual(["users", "u_42"]);
    expect(memoryReachOf("end_user:a.b")).toBeNull();
    expect(memoryReachOf("key:key_1")).toBeUndefined();
    expect(memoryReachOf("user-1")).toBeUndefined();
  });

  it("narrows a grant to the reach: inside stays, above becomes the reach, beside goes", () => {
    const reach = ["users", "u_1"];
    const grant = { namespaces: [["users"], ["users", "u_1", "notes"], ["users", "u_2"], ["shared"]], write: [["users"], ["shared"]] };
    expect(confineGrant(grant, reach)).toEqual({
      namespaces: [
        ["users", "u_1"],
        ["users", "u_1", "notes"],
      ],
      write: [["users", "u_1"]],
    });
    expect(confineGrant({ namespaces: [["shared"]], write: [] }, reach)).toBeNull();
    expect(confineGrant(grant, null)).toBeNull();
    expect(confineGrant(grant, undefined)).toBe(grant);
    expect(confineGrant(null, reach)).toBeNull();
  });

  it("allows a namespace within the reach only", () => {
    expect(reachAllows(["users", "u_1"], ["users", "u_1"])).toBe(true);
    expect(reachAllows(["users", "u_1"], ["users", "u_1", "x"])).toBe(true);
    expect(reachAllows(["users", "u_1"], ["users", "u_10"])).toBe(false);
    expect(reachAllows(["users", "u_1"], ["users"])).toBe(false);
    expect(reachAllows(["users", "u_1"], [])).toBe(false);
    expect(reachAllows(null, ["users", "u_1"])).toBe(false);
    expect(reachAllows(undefined, ["anything"])).toBe(true);
  });

  it("is what a session shown to an end user says, with no prompt and only client tools", () => {
    const session = {
      id: "ses_1",
      system: "secret",
      tools: [
        { type: "webhook", name: "w", url: "https://x" },
        { type: "client", name: "c" },
      ],
      memory: { namespaces: [["users"]], write: [["users"]] },
    };
    expect(withoutDefinition(session, "end_user:u_1")).toEqual({
      id: "ses_1",
      system: null,
      tools: [{ type: "client", name: "c" }],
      memory: { namespaces: [["users", "u_1"]], write: [["users", "u_1"]] },
    });
  });
});

describe("an end user's token as verifyJwt reads it", () => {
  let keys: PlatformKeys;
  let idp: ExternalIdp;
  let deps: JwtDeps;
  beforeAll(async () => {
    keys = await makePlatformKeys();
    idp = await makeExternalIdp("ES384");
    deps = { config: { ...AUTH_CONFIG }, platformKey: keys, externalJwks: idp.jwks };
  });
  const platform = (claims: JWTPayload, omit: string[] = []) =>
    signToken(keys.privateKey, "ES256", { claims, omit, header: { kid: keys.kid } });

  it("is the end user, with its issue instant, minting key and metadata, from signAccessToken", async () => {
    const token = await signAccessToken(
      keys,
      {
        tenantId: "acme",
        subject: "end_user:u_1",
        scopes: ["sessions:read"],
        ttlSeconds: 600,
        sourceKeyId: "key_0123456789abcdef01234567",
        endUserMetadata: { plan: "pro" },
      },
      AUTH_CONFIG,
      NOW + 250,
    );
    expect(await verifyJwt(token, deps, NOW + 300)).toEqual({
      ok: true,
      principal: {
        tenantId: "acme",
        subject: "end_user:u_1",
        scopes: ["sessions:read"],
        via: "jwt",
        expiresAt: (NOW_S + 600) * 1000,
        endUser: "u_1",
        issuedAt: NOW + 250,
        sourceKeyId: "key_0123456789abcdef01234567",
        endUserMetadata: { plan: "pro" },
      },
    });
  });

  it.each<[string, JWTPayload, string[], AuthFailure]>([
    ["a subject outside the pattern", { sub: "end_user:a b" }, [], "claim_invalid"],
    ["an empty subject", { sub: "end_user:" }, [], "claim_invalid"],
    ["no iat", { sub: "end_user:u_1" }, ["iat"], "claim_invalid"],
    ["a key_id, as if it were the key", { sub: "end_user:u_1", key_id: "key_0123456789abcdef01234567" }, [], "claim_invalid"],
    ["a malformed minting key", { sub: "end_user:u_1", source_key_id: "nope" }, [], "claim_invalid"],
    ["metadata that is not a string map", { sub: "end_user:u_1", end_user_metadata: { n: 1 } }, [], "claim_invalid"],
  ])("refuses %s", async (_name, claims, omit, reason) => {
    expect(await verifyJwt(await platform(claims, omit), deps, NOW)).toEqual({ ok: false, reason });
  });

  it("keeps only an end user's scopes, and an iat_ms outside iat's second is not believed", async () => {
    const result = await verifyJwt(
      await platform({ sub: "end_user:u_1", scope: "tenant:admin memory:read platform:admin", iat_ms: NOW + 5_000 }),
      deps,
      NOW,
    );
    expect(result).toMatchObject({ ok: true, principal: { endUser: "u_1", scopes: ["memory:read"], issuedAt: NOW_S * 1000 } });
  });

  it("cannot come from an external identity provider", async () => {
    const token = await signToken(idp.privateKey, "ES384", {
      header: { kid: idp.kid },
      claims: { iss: AUTH_CONFIG.externalIssuer, aud: AUTH_CONFIG.externalAudience, sub: "end_user:u_1" },
    });
    expect(await verifyJwt(token, deps, NOW)).toEqual({ ok: false, reason: "subject_reserved" });
  });
});
