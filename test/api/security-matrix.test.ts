/**
 * Runs against every operation of the served OpenAPI document, so a new route is covered the
 * day it is added: no credentials, a bad credential, and a credential without the scope.
 */
import { describe, expect, it } from "vitest";
import { call, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

interface Operation {
  operationId: string;
  security: Record<string, string[]>[];
  requestBody?: unknown;
}

/** Well-formed values for each path parameter, so only authorization can refuse the call. */
const SAMPLE_PARAMS: Record<string, string> = {
  tenant_id: "acme",
  key_id: "key_0123456789abcdef01234567",
  id: "ses_sample",
  session_id: "ses_sample",
  call_id: "toolu_sample",
};

async function securedOperations(): Promise<{ name: string; method: string; path: string; op: Operation }[]> {
  const doc = (await (await call("/openapi.json")).json()) as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item)
      .filter(([, op]) => op.security.length > 0)
      .map(([method, op]) => ({
        name: `${method.toUpperCase()} ${template}`,
        method: method.toUpperCase(),
        path: template.replace(/\{(\w+)\}/g, (_, param: string) => SAMPLE_PARAMS[param] ?? "sample"),
        op,
      })),
  );
}

function init(method: string, op: Operation, headers: Record<string, string> = {}): RequestInit {
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
