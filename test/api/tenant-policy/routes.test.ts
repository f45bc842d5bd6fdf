/** The tenant's tool policy over HTTP: set, read, remove, refused when invalid, and the check of one call. */
import { describe, expect, it } from "vitest";
import { call } from "../../support/api";
import { bearer, freshTenant } from "../../support/tokens";

const json = (headers: Record<string, string>) => ({ ...headers, "Content-Type": "application/json" });
const FORBID_ALICE = '@id("no-alice") forbid(principal == User::"end_user:alice", action, resource == Tool::"send");';

describe("PUT /v1/tenant/policy", () => {
  it("stores a valid policy with a growing version, reads it back, and removes it", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    expect((await call("/v1/tenant/policy", { headers })).status).toBe(404);
    const put = await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: FORBID_ALICE }) });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ cedar: FORBID_ALICE, version: 1 });
    const again = await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: FORBID_ALICE }) });
    expect(((await again.json()) as { version: number }).version).toBe(2);
    expect(await (await call("/v1/tenant/policy", { headers })).json()).toMatchObject({ cedar: FORBID_ALICE, version: 2 });
    expect((await call("/v1/tenant/policy", { method: "DELETE", headers })).status).toBe(204);
    expect((await call("/v1/tenant/policy", { headers })).status).toBe(404);
    expect((await call("/v1/tenant/policy", { method: "DELETE", headers })).status).toBe(404);
  });

  it("answers 400 with the validator's messages, and stores nothing", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    const res = await call("/v1/tenant/policy", {
      method: "PUT",
      headers,
      body: JSON.stringify({ cedar: "permit(principal, action, resource) when { context.nope };" }),
    });
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { code: string; errors: { path: string; message: string }[] };
    expect(problem.code).toBe("validation_failed");
    expect(problem.errors[0]).toMatchObject({ path: "body.cedar", message: expect.stringMatching(/nope/) });
    expect((await call("/v1/tenant/policy", { headers })).status).toBe(404);
  });

  it("answers 400 past 1,000 statements and past 64 KiB", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    const many = "forbid(principal,action,resource);\n".repeat(1001);
    expect((await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: many }) })).status).toBe(400);
    const large = `// ${"x".repeat(64 * 1024)}\npermit(principal, action, resource);`;
    expect((await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: large }) })).status).toBe(400);
    // Within zod's character limit, over the byte limit: the engine's byte check answers.
    const wide = `// ${"é".repeat(40_000)}\npermit(principal, action, resource);`;
    const res = await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: wide }) });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/at most 65536 bytes/);
  });

  it("answers 400, not 500, for the crafted policies that trapped the engine, and goes on judging", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    const deep = `permit(principal, action, resource) when { ${"(".repeat(140)}true${")".repeat(140)} };`;
    const long = `forbid(principal, action, resource) when { ${Array(500).fill('context.input.hasTag("a")').join(" || ")} };`;
    for (const cedar of [deep, long])
      expect((await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar }) })).status).toBe(400);
    expect((await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: FORBID_ALICE }) })).status).toBe(200);
  });

  it("needs tenant:admin", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["sessions:read", "sessions:write"] }));
    expect((await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: FORBID_ALICE }) })).status).toBe(403);
    expect((await call("/v1/tenant/policy/check", { method: "POST", headers, body: "{}" })).status).toBe(403);
  });
});

describe("POST /v1/tenant/policy/check", () => {
  it("judges by the stored policy: one end user denied, another allowed", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    await call("/v1/tenant/policy", { method: "PUT", headers, body: JSON.stringify({ cedar: FORBID_ALICE }) });
    const check = async (principal: string) =>
      (
        await call("/v1/tenant/policy/check", {
          method: "POST",
          headers,
          body: JSON.stringify({ principal, tool: { name: "send", type: "webhook" }, input: { to: "x" } }),
        })
      ).json();
    expect(await check("end_user:alice")).toEqual({ decision: "deny", policy_ids: ["tenant.no-alice"], errors: [] });
    expect(await check("end_user:bob")).toEqual({ decision: "allow", policy_ids: [], errors: [] });
    const a2a = await call("/v1/tenant/policy/check", {
      method: "POST",
      headers,
      body: JSON.stringify({ principal: "end_user:bob", tool: { name: "peer", type: "a2a" } }),
    });
    expect(a2a.status).toBe(200);
  });

  it("judges a draft with the run's taint, and refuses an invalid draft", async () => {
    const headers = json(await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] }));
    const cedar =
      '@id("hold") @require_approval permit(principal, action, resource) when { context.tainted && resource.type == "webhook" };';
    const body = (tainted: boolean) => JSON.stringify({ principal: "u", tool: { name: "send", type: "webhook" }, tainted, cedar });
    const held = await call("/v1/tenant/policy/check", { method: "POST", headers, body: body(true) });
    expect(await held.json()).toEqual({ decision: "require_approval", policy_ids: ["tenant.hold"], errors: [] });
    const clean = await call("/v1/tenant/policy/check", { method: "POST", headers, body: body(false) });
    expect(((await clean.json()) as { decision: string }).decision).toBe("allow");
    const bad = await call("/v1/tenant/policy/check", {
      method: "POST",
      headers,
      body: JSON.stringify({ principal: "u", tool: { name: "send", type: "webhook" }, cedar: "nonsense" }),
    });
    expect(bad.status).toBe(400);
  });
});
