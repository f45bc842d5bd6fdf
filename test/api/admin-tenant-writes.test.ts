/**
 * The platform admin's writes on a tenant id: a deleted tenant (or one being deleted) is a 409
 * problem, never a 500; an id never seen is provisioned by its limits or models, and is a 404
 * for the writes that have nothing to act on.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/api/app";
import { tenantRegistryStub } from "../../src/objects";
import { TenantGoneError } from "../../src/tenants/tenant-binding";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

const OPS_TENANT = freshTenant("ops-writes");
const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });

/** Every write an admin can make on one tenant, as [name, request]. */
function writes(tenantId: string, headers: Record<string, string>): [string, () => Promise<Response>][] {
  const base = `/v1/admin/tenants/${tenantId}`;
  return [
    ["PUT limits", () => callJson(`${base}/limits`, "PUT", { max_steps_per_run: 5 }, headers)],
    ["PUT models", () => callJson(`${base}/models`, "PUT", { models: null }, headers)],
    ["PUT jurisdiction", () => callJson(base, "PUT", { jurisdiction: "eu" }, headers)],
    ["POST suspend", () => call(`${base}/suspend`, { method: "POST", headers })],
    ["POST unsuspend", () => call(`${base}/unsuspend`, { method: "POST", headers })],
    ["POST sessions/cancel", () => callJson(`${base}/sessions/cancel`, "POST", {}, headers)],
  ];
}

async function deletionStatus(tenantId: string): Promise<string | undefined> {
  const res = await call(`/v1/admin/tenants/${tenantId}`, { headers: await platformAdmin() });
  return ((await res.json()) as { deletion: { status: string } | null }).deletion?.status;
}

describe("admin writes on a deleted tenant", () => {
  it("answer 409 while the deletion runs and once it is done, never 500", async () => {
    const tenantId = freshTenant("doomed");
    const member = await bearer({ tenantId, scopes: ["tenant:admin"] });
    expect((await call("/v1/tenant", { headers: member })).status).toBe(200);
    const headers = await platformAdmin();
    expect((await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers })).status).toBe(202);
    // Under way: lifting the suspension would let the tenant's requests in while it is erased.
    for (const [name, send] of writes(tenantId, headers)) {
      const res = await send();
      expect(res.status, `${name} while deleting`).toBe(409);
      expect((await readProblem(res)).code).toBe("conflict");
    }
    const deadline = Date.now() + 10_000;
    while ((await deletionStatus(tenantId)) !== "deleted") {
      if (Date.now() > deadline) throw new Error("the tenant was not deleted within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const [name, send] of writes(tenantId, headers)) {
      const res = await send();
      expect(res.status, `${name} once deleted`).toBe(409);
      expect((await readProblem(res)).detail).toBe("This tenant was deleted.");
    }
  });
});

describe("admin writes on a tenant id never seen", () => {
  it("answer 404 to suspend, unsuspend and cancel, and create nothing", async () => {
    const tenantId = freshTenant("typo");
    const headers = await platformAdmin();
    for (const [name, send] of writes(tenantId, headers).filter(([name]) => name.startsWith("POST"))) {
      const res = await send();
      expect(res.status, name).toBe(404);
      expect((await readProblem(res)).code).toBe("not_found");
    }
    expect(await tenantRegistryStub(env).knows(tenantId)).toBe(false);
  });

  it("provision it on setting its limits or models: it is listed, and deleting it is 202", async () => {
    const headers = await platformAdmin();
    for (const path of ["limits", "models"] as const) {
      const tenantId = freshTenant(`new-${path}`);
      const body = path === "limits" ? { max_steps_per_run: 5 } : { models: null };
      expect((await callJson(`/v1/admin/tenants/${tenantId}/${path}`, "PUT", body, headers)).status, path).toBe(200);
      expect(await tenantRegistryStub(env).knows(tenantId), path).toBe(true);
      const deleted = await call(`/v1/admin/tenants/${tenantId}`, { method: "DELETE", headers });
      expect(deleted.status, path).toBe(202);
    }
  });
});

describe("a deleted tenant's refusal reaching the error renderer", () => {
  it("is a 409 problem, whichever route it came through", async () => {
    const app = createApp({ routes: (routes) => routes.get("/gone", () => Promise.reject(new TenantGoneError("the tenant was deleted"))) });
    const res = await app.request("/gone", undefined, env);
    expect(res.status).toBe(409);
    expect(await readProblem(res)).toMatchObject({ code: "conflict", detail: "This tenant was deleted." });
  });
});
