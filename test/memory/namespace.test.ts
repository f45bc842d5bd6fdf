/**
 * Namespaces and grants, pure: a namespace is parsed into segments and compared segment by
 * segment, so no spelling of a path (dots, `..`, empty or encoded segments, case, look-alike
 * letters) reaches a namespace the grant does not name.
 */
import { describe, expect, it } from "vitest";
import { grantAllows, isWithin, namespaceProblem, parseNamespace, resolveGrant } from "../../src/session-config/memory-namespace";

const GRANT = { namespaces: [["users", "u_1"], ["shared"]], write: [["users", "u_1"]] };

describe("namespaces", () => {
  it("takes 1-4 segments of letters, digits, _, @, : and -", () => {
    expect(namespaceProblem(["users", "u_1@example:x-y"])).toBeNull();
    for (const bad of [
      [],
      ["a", "b", "c", "d", "e"],
      [""],
      ["a.b"],
      ["a/b"],
      [".."],
      ["%2E"],
      ["ｕsers"],
      ["u\u0000"],
      ["a b"],
      [1],
      "users",
      ["x".repeat(65)],
    ]) {
      expect(namespaceProblem(bad), JSON.stringify(bad)).not.toBeNull();
    }
    expect(namespaceProblem([], 0)).toBeNull();
  });

  it("parses the dotted form of a query string, and nothing that hides another segment", () => {
    expect(parseNamespace("users.u_1")).toEqual(["users", "u_1"]);
    for (const bad of ["users..u_1", ".users", "users.", "users.u_1.a.b.c", "users%2Eu_1", ""]) expect(parseNamespace(bad), bad).toBeNull();
  });

  it("is within a prefix by whole segments only", () => {
    expect(isWithin(["users", "u_1", "notes"], ["users", "u_1"])).toBe(true);
    expect(isWithin(["users", "u_1"], ["users", "u_1"])).toBe(true);
    expect(isWithin(["users", "u_10"], ["users", "u_1"])).toBe(false);
    expect(isWithin(["users"], ["users", "u_1"])).toBe(false);
    expect(isWithin(["Users", "u_1"], ["users", "u_1"])).toBe(false);
  });
});

describe("memory grants", () => {
  it("allow reading the granted namespaces and below, writing only the write ones", () => {
    const grant = { namespaces: GRANT.namespaces, write: GRANT.write };
    expect(grantAllows(grant, ["users", "u_1", "notes"], "read")).toBe(true);
    expect(grantAllows(grant, ["shared", "faq"], "read")).toBe(true);
    expect(grantAllows(grant, ["shared"], "write")).toBe(false);
    expect(grantAllows(grant, ["users"], "read")).toBe(false);
    expect(grantAllows(grant, ["users", "u_2"], "read")).toBe(false);
  });

  it("fill templates from the metadata, and name a missing or unusable field", () => {
    const template = { namespaces: [["users", "{metadata.user_id}"]], write: [["users", "{metadata.user_id}", "notes"]] };
    expect(resolveGrant(template, { user_id: "u_42" })).toEqual({
      ok: true,
      grant: { namespaces: [["users", "u_42"]], write: [["users", "u_42", "notes"]] },
    });
    expect(resolveGrant(template, null)).toMatchObject({ ok: false, errors: [{ path: "body.metadata" }, { path: "body.metadata" }] });
    // A metadata value that would be two segments, or an escape, is not one.
    for (const value of ["u_1.admin", "..", "", "u/1", "ｕ"]) {
      expect(resolveGrant(template, { user_id: value }), value).toMatchObject({
        ok: false,
        errors: [{ path: "body.metadata.user_id" }, { path: "body.metadata.user_id" }],
      });
    }
    // An inherited property is not metadata.
    expect(resolveGrant({ namespaces: [["{metadata.constructor}"]] }, {})).toMatchObject({ ok: false });
    expect(resolveGrant(template, "keep")).toEqual({ ok: true, grant: { namespaces: template.namespaces, write: template.write } });
  });

  it("refuse a write namespace outside every read one", () => {
    expect(resolveGrant({ namespaces: [["users", "u_1"]], write: [["users"]] }, null)).toEqual({
      ok: false,
      errors: [{ path: "body.memory.write.0", message: "Must be within one of the namespaces." }],
    });
  });
});
