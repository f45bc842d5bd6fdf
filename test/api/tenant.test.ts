import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { USAGE_WINDOW_DAYS, usageTotals } from "../../src/api/usage";
import { call } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

describe("GET /v1/tenant", () => {
  it("shows effective limits, usage and session counts of the caller's tenant", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_steps_per_run: 7 });
    const res = await call("/v1/tenant", { headers: await bearer({ tenantId, scopes: ["sessions:read"] }) });
    expect(res.status).toBe(200);
    const tenant = (await res.json()) as {
      tenant_id: string;
      suspended: boolean;
      limits: { max_steps_per_run: number; max_request_bytes: number };
      usage: { window_days: number; input_tokens: number; daily: unknown[] };
      counts: Record<string, number>;
    };
    expect(tenant.tenant_id).toBe(tenantId);
    expect(tenant.suspended).toBe(false);
    expect(tenant.limits.max_steps_per_run).toBe(7);
    expect(tenant.limits.max_request_bytes).toBe(1024 * 1024);
    expect(tenant.usage).toMatchObject({ window_days: USAGE_WINDOW_DAYS, input_tokens: 0 });
    expect(tenant.counts).toMatchObject({ idle: 0, running: 0, done: 0 });
  });
});

describe("webhook secret", () => {
  it("reads the same secret until it is rotated", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    const first = (await (await call("/v1/tenant/webhook-secret", { headers })).json()) as { secret: string };
    const again = (await (await call("/v1/tenant/webhook-secret", { headers })).json()) as { secret: string };
    expect(again.secret).toBe(first.secret);

    const rotated = await call("/v1/tenant/webhook-secret", { method: "POST", headers });
    expect(rotated.status).toBe(200);
    const next = (await rotated.json()) as { secret: string };
    expect(next.secret).not.toBe(first.secret);
    expect(((await (await call("/v1/tenant/webhook-secret", { headers })).json()) as { secret: string }).secret).toBe(next.secret);
  });

  it("needs tenant:admin", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["sessions:read", "sessions:write"] });
    expect((await call("/v1/tenant/webhook-secret", { headers })).status).toBe(403);
    expect((await call("/v1/tenant/webhook-secret", { method: "POST", headers })).status).toBe(403);
  });
});

describe("usageTotals", () => {
  it("sums the days it is given and reports the window", () => {
    const day = (d: string, n: number) => ({
      day: d,
      input_tokens: n,
      output_tokens: 2 * n,
      cache_read_tokens: 3 * n,
      cache_write_tokens: n,
      steps: 1,
      sessions_created: 1,
    });
    expect(usageTotals([day("2026-01-01", 10), day("2026-01-02", 5)], 30)).toEqual({
      window_days: 30,
      input_tokens: 15,
      output_tokens: 30,
      cache_read_tokens: 45,
      cache_write_tokens: 15,
      steps: 2,
      sessions_created: 2,
    });
    expect(usageTotals([], 7)).toMatchObject({ window_days: 7, input_tokens: 0 });
  });
});

describe("tenant settings", () => {
  async function put(headers: Record<string, string>, body: unknown) {
    return call("/v1/tenant/settings", {
      method: "PUT",
      headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  it("are read and replaced by a tenant admin, with origins normalized", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    expect(await (await call("/v1/tenant/settings", { headers })).json()).toEqual({
      webhook_origins: null,
      session_retention_days: null,
      traces: null,
      redaction: null,
    });
    const res = await put(headers, {
      webhook_origins: ["HTTPS://Hooks.Example.com:443", "https://hooks.example.com/", "https://other.example.com:8443"],
    });
    expect(res.status).toBe(200);
    const expected = {
      webhook_origins: ["https://hooks.example.com", "https://other.example.com:8443"],
      session_retention_days: null,
      traces: null,
      redaction: null,
    };
    expect(await res.json()).toEqual(expected);
    expect(await (await call("/v1/tenant/settings", { headers })).json()).toEqual(expected);
  });

  it("are out of reach without tenant:admin", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["sessions:read", "sessions:write"] });
    expect((await call("/v1/tenant/settings", { headers })).status).toBe(403);
    expect((await put(headers, { webhook_origins: null })).status).toBe(403);
  });

  it.each([
    ["a path", ["https://hooks.example.com/tools"]],
    ["a query", ["https://hooks.example.com?x=1"]],
    ["credentials", ["https://u:p@hooks.example.com"]],
    ["not a URL", ["hooks.example.com"]],
    ["a wildcard", ["https://*.example.com"]],
  ])("refuses an origin with %s, naming the entry", async (_what, origins) => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    const res = await put(headers, { webhook_origins: origins });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(["body.webhook_origins.0"]);
  });

  it("refuses a body that is not the settings object", async () => {
    const headers = await bearer({ tenantId: freshTenant(), scopes: ["tenant:admin"] });
    expect((await put(headers, { webhook_origins: "https://a.example.com" })).status).toBe(400);
    expect((await put(headers, { webhook_origins: Array.from({ length: 51 }, (_, i) => `https://h${i}.example.com`) })).status).toBe(400);
    expect((await put(headers, { other: true, webhook_origins: null })).status).toBe(400);
  });
});
