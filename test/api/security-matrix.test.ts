/**
 * Runs against every operation of the served OpenAPI document, so a new route is covered the
 * day it is added: no credentials, a bad credential, and a credential without the scope.
 */
import { describe, expect, it } from "vitest";
import { call, readProblem } from "../support/api";
import { type DocumentOperation, securedOperations } from "../support/document-operations";
import { bearer, freshTenant } from "../support/tokens";

function init(method: string, op: DocumentOperation, headers: Record<string, string> = {}): RequestInit {
  return op.requestBody ? { method, headers: { ...headers, "Content-Type": "application/json" }, body: "{}" } : { method, headers };
}

describe("every secured operation", () => {
  it("answers no credentials with 401 and WWW-Authenticate", async () => {
    const operations = await securedOperations();
    expect(operations.length).toBeGreaterThan(10);
    for (const { name, method, path, op } of operations) {
      const res = await call(path, init(method, op));
      expect(res.status, name).toBe(401);
      expect(res.headers.get("WWW-Authenticate"), name).toMatch(/^Bearer/);
      await res.body?.cancel();
    }
  });

  it("answers a credential of the wrong kind with 401", async () => {
    for (const { name, method, path, op } of await securedOperations()) {
      const res = await call(path, init(method, op, { Authorization: "Bearer ak_not.a.key" }));
      expect(res.status, name).toBe(401);
      await res.body?.cancel();
    }
  });

  it("answers a valid credential without the operation's scope with 403", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: [] });
    for (const { name, method, path, op } of await securedOperations()) {
      const scoped = op.security.some((requirement) => Object.values(requirement).some((roles) => roles.length > 0));
      if (!scoped) continue;
      const res = await call(path, init(method, op, headers));
      expect(res.status, name).toBe(403);
      expect((await readProblem(res)).status, name).toBe(403);
    }
  });
});
