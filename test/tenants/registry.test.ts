import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TenantRegistry } from "../../src/tenants/tenant-registry";
import { tenantRegistryStub } from "../../src/objects";
import type { TenantEntry } from "../../src/tenants/types";
import { BASE_MS } from "./helpers";

async function listAll(limit: number): Promise<TenantEntry[]> {
  const registry = tenantRegistryStub(env);
  const all: TenantEntry[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: TenantEntry[]; next_cursor: string | null } = await registry.list({ limit, cursor });
    expect(page.data.length).toBeLessThanOrEqual(limit);
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

describe("TenantRegistry", () => {
  it("registers a tenant once, keeping its first time", async () => {
    const registry = tenantRegistryStub(env);
    const tenantId = `r-${crypto.randomUUID()}`;
    await registry.register(tenantId, BASE_MS);
    await registry.register(tenantId, BASE_MS + 5_000);
    const matches = (await listAll(200)).filter((entry) => entry.tenant_id === tenantId);
    expect(matches).toEqual([{ tenant_id: tenantId, created_at: new Date(BASE_MS).toISOString(), jurisdiction: null }]);
  });

  it("lists every tenant exactly once, by id, page by page", async () => {
    const registry = tenantRegistryStub(env);
    const prefix = `p-${crypto.randomUUID().slice(0, 8)}-`;
    const ids = Array.from({ length: 23 }, (_, i) => `${prefix}${String(i).padStart(2, "0")}`);
    for (const id of [...ids].reverse()) await registry.register(id, BASE_MS);
    const listed = (await listAll(4)).map((entry) => entry.tenant_id);
    expect(listed.filter((id) => id.startsWith(prefix))).toEqual(ids);
    expect(listed).toEqual([...listed].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it("refuses malformed tenant ids, page sizes and cursors", async () => {
    await runInDurableObject(tenantRegistryStub(env), async (registry: TenantRegistry) => {
      await expect(registry.register("", BASE_MS)).rejects.toThrow(/tenant id/);
      await expect(registry.register("ok-id", -1)).rejects.toThrow(/now/);
      await expect(registry.list({ limit: 0 })).rejects.toThrow(/limit/);
      await expect(registry.list({ limit: 10, cursor: "%%%" })).rejects.toThrow(/cursor/);
    });
  });
});
