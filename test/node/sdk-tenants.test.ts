/** The SDK's platform-admin helpers for a tenant's jurisdiction and shards: the request each makes, and a 409 as a PlatformError. */
import { describe, expect, it } from "vitest";
import { createPlatformClient, PlatformError, setTenantJurisdiction, setTenantShards } from "../../sdk/src/index.ts";

function clientAnswering(status: number, body: unknown, seen: Request[]) {
  return createPlatformClient({
    baseUrl: "https://platform.test",
    credential: "token",
    fetch: async (input) => {
      seen.push(input as Request);
      const type = status >= 400 ? "application/problem+json" : "application/json";
      return new Response(JSON.stringify(body), { status, headers: { "Content-Type": type } });
    },
  });
}

describe("setTenantJurisdiction", () => {
  it("puts the jurisdiction on the tenant and answers the tenant", async () => {
    const seen: Request[] = [];
    const tenant = await setTenantJurisdiction(clientAnswering(200, { tenant_id: "acme", jurisdiction: "eu" }, seen), "acme", "eu");
    expect(tenant.jurisdiction).toBe("eu");
    expect(seen.map((request) => [request.method, request.url])).toEqual([["PUT", "https://platform.test/v1/admin/tenants/acme"]]);
    expect(await seen[0]!.json()).toEqual({ jurisdiction: "eu" });
  });

  it("throws a PlatformError with the 409 of a tenant that holds data", async () => {
    const problem = { type: "about:blank", code: "conflict", title: "Conflict", status: 409, detail: "holds data", request_id: "r" };
    const refused = await setTenantJurisdiction(clientAnswering(409, problem, []), "acme", null).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PlatformError);
    expect((refused as PlatformError).status).toBe(409);
  });
});

describe("setTenantShards", () => {
  it("puts the shard count on the tenant and answers the layout", async () => {
    const seen: Request[] = [];
    const layout = await setTenantShards(clientAnswering(200, { generation: 1, shards: 8 }, seen), "acme", 8);
    expect(layout).toEqual({ generation: 1, shards: 8 });
    expect(seen.map((request) => [request.method, request.url])).toEqual([["PUT", "https://platform.test/v1/admin/tenants/acme/shards"]]);
    expect(await seen[0]!.json()).toEqual({ shards: 8 });
  });

  it("throws a PlatformError with the 409 of a tenant that has a daily budget", async () => {
    const problem = { type: "about:blank", code: "conflict", title: "Conflict", status: 409, detail: "a daily budget", request_id: "r" };
    const refused = await setTenantShards(clientAnswering(409, problem, []), "acme", 4).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PlatformError);
    expect((refused as PlatformError).status).toBe(409);
  });
});
