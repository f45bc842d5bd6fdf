import { describe, expect, it } from "vitest";
import {
  ALL_SCOPES,
  TENANT_ID_PATTERN,
  canAdministerTenant,
  hasScope,
  parseScopes,
  type Principal,
  type Scope,
} from "../../src/auth/principal";

const principal = (scopes: Scope[], tenantId = "acme"): Principal => ({ tenantId, subject: "u", scopes, via: "jwt" });

describe("hasScope", () => {
  // [held, asked, granted]
  const table: Array<[Scope[], Scope, boolean]> = [
    [[], "sessions:read", false],
    [["sessions:read"], "sessions:read", true],
    [["sessions:read"], "sessions:write", false],
    [["sessions:write"], "sessions:write", true],
    [["sessions:write"], "sessions:read", false],
    [["sessions:write"], "tenant:admin", false],
    [["tenant:admin"], "sessions:read", true],
    [["tenant:admin"], "sessions:write", true],
    [["tenant:admin"], "tenant:admin", true],
    [["tenant:admin"], "platform:admin", false],
    [["sessions:read", "sessions:write"], "tenant:admin", false],
    [["platform:admin"], "sessions:read", true],
    [["platform:admin"], "sessions:write", true],
    [["platform:admin"], "tenant:admin", true],
    [["platform:admin"], "platform:admin", true],
  ];
  it.each(table)("holding %j, asking %s → %s", (held, asked, granted) => {
    expect(hasScope(principal(held), asked)).toBe(granted);
  });
});

describe("canAdministerTenant", () => {
  it("lets a tenant admin reach only its own tenant", () => {
    expect(canAdministerTenant(principal(["tenant:admin"]), "acme")).toBe(true);
    expect(canAdministerTenant(principal(["tenant:admin"]), "globex")).toBe(false);
  });
  it("lets a platform admin reach every tenant", () => {
    expect(canAdministerTenant(principal(["platform:admin"]), "globex")).toBe(true);
  });
  it("refuses session scopes", () => {
    expect(canAdministerTenant(principal(["sessions:read", "sessions:write"]), "acme")).toBe(false);
  });
});

describe("parseScopes", () => {
  it("keeps known scopes in canonical order without duplicates", () => {
    expect(parseScopes("tenant:admin sessions:read\tsessions:read  bogus")).toEqual(["sessions:read", "tenant:admin"]);
  });
  it("reads arrays and ignores non-strings", () => {
    expect(parseScopes(["platform:admin", 1, null, "sessions:write"])).toEqual(["sessions:write", "platform:admin"]);
  });
  it("returns nothing for other shapes and for look-alikes", () => {
    expect(parseScopes(undefined)).toEqual([]);
    expect(parseScopes({ scope: "sessions:read" })).toEqual([]);
    expect(parseScopes("Sessions:Read sessions:read:all sessions")).toEqual([]);
  });
  it("accepts every scope it names", () => {
    expect(parseScopes(ALL_SCOPES.join(" "))).toEqual(ALL_SCOPES);
  });
});

describe("TENANT_ID_PATTERN", () => {
  const valid = ["a", "acme", "Acme-1", "acme.prod_eu-1", "9", "a".repeat(64)];
  const invalid = ["", "-acme", ".acme", "_acme", "a".repeat(65), "ac me", "acme/x", "../acme", "acme\n", "ácme", "acme%2F"];
  it.each(valid)("accepts %j", (id) => expect(TENANT_ID_PATTERN.test(id)).toBe(true));
  it.each(invalid)("refuses %j", (id) => expect(TENANT_ID_PATTERN.test(id)).toBe(false));
});
