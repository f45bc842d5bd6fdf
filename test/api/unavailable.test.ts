/**
 * When the tenant's store cannot answer, the gateway says "retry shortly" (503) rather than
 * "bad credentials" (401) or a bare 500. The store is made to fail by binding the tenant's
 * index object to another tenant, which it then refuses to serve.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexName } from "../../src/objects";
import { PROBLEM_TYPE_BASE } from "../../src/api/errors";
import { call, readProblem } from "../support/api";
import { issuedKey } from "../support/api-keys";
import { bearer, freshTenant } from "../support/tokens";

async function breakIndexOf(tenantId: string): Promise<void> {
  await env.TENANT_INDEX.get(env.TENANT_INDEX.idFromName(tenantIndexName(tenantId))).admitRequest(freshTenant("squatter"), {
    bucket: "k",
    now: Date.now(),
  });
}

async function expect503(headers: Record<string, string>) {
  const res = await call("/v1/tenant", { headers });
  expect(res.status).toBe(503);
  expect(Number(res.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
  expect(await readProblem(res)).toMatchObject({ type: `${PROBLEM_TYPE_BASE}service_unavailable`, status: 503 });
}

describe("an unreachable tenant store", () => {
  it("answers an API key with 503, not 401", async () => {
    const tenantId = freshTenant();
    await breakIndexOf(tenantId);
    const { plaintext } = await issuedKey(tenantId);
    await expect503({ Authorization: `Bearer ${plaintext}` });
  });

  it("answers a valid JWT with 503, not 500", async () => {
    const tenantId = freshTenant();
    await breakIndexOf(tenantId);
    await expect503(await bearer({ tenantId, scopes: ["sessions:read"] }));
  });
});
