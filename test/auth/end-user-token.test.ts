/** The pure rules of end users: which scopes a caller may give, revocation, the kind of a principal, the routes, memory's reach. */
import { describe, expect, it } from "vitest";
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
    expect(confineGrant(grant, reach)).toEqual({ namespaces: [["users", "u_1"], ["users", "u_1", "notes"]], write: [["users", "u_1"]] });
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
    const session = { id: "ses_1", system: "secret", tools: [{ type: "webhook", name: "w", url: "https://x" }, { type: "client", name: "c" }], memory: { namespaces: [["users"]], write: [["users"]] } };
    expect(withoutDefinition(session, "end_user:u_1")).toEqual({ id: "ses_1", system: null, tools: [{ type: "client", name: "c" }], memory: { namespaces: [["users", "u_1"]], write: [["users", "u_1"]] } });
  });
});
