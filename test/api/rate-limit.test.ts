/**
 * The rate limit as a tenant's callers meet it through the gateway: one key flooding stops at
 * its share and leaves the others, the admin included, their requests; callers flooding together
 * leave the admins the reserve of the tenant's window; an admin's key management and suspension
 * requests pass while the tenant's window is full; and every answer to an admitted request says
 * where the caller stands (`RateLimit-Policy`, `RateLimit`).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { RATE_WINDOW_MS, secondsToWindowEnd } from "../../src/tenants/rate-limit";
import { call, callJson, readProblem } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";

type Headers = Record<string, string>;

/** Waits out the end of the current window when it is close, so one test's requests share a window. */
async function awayFromWindowEnd(): Promise<void> {
  const left = secondsToWindowEnd(Date.now());
  if (left < 8) await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
}

/** A tenant with `requests_per_minute` 10: each caller's share (50% by default) is 5, the admins' reserve 1. */
async function tenantOfTen(perMinute = 10): Promise<{ tenantId: string; admin: Headers }> {
  const tenantId = freshTenant();
  await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { requests_per_minute: perMinute });
  return { tenantId, admin: await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"] }) };
}

async function createKey(admin: Headers, scopes: string[]): Promise<{ key_id: string; headers: Headers }> {
  const res = await callJson("/v1/api-keys", "POST", { name: "backend", scopes }, admin);
  expect(res.status).toBe(201);
  const created = (await res.json()) as { key_id: string; key: string };
  return { key_id: created.key_id, headers: { Authorization: `Bearer ${created.key}` } };
}

/** The statuses of `times` reads of the tenant, bodies dropped. */
async function statusesOf(headers: Headers, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) {
    const res = await call("/v1/tenant", { headers });
    statuses.push(res.status);
    await res.body?.cancel();
  }
  return statuses;
}

describe("one key flooding", () => {
  it("stops at its share; another key and the admin keep working, and the admin's revocation of it succeeds", async () => {
    const { admin } = await tenantOfTen();
    const flood = await createKey(admin, ["sessions:read"]);
    const other = await createKey(admin, ["sessions:read"]);
    await awayFromWindowEnd();

    const flooded = await statusesOf(flood.headers, 12);
    expect(flooded.filter((status) => status === 200)).toHaveLength(5);
    expect(flooded.slice(5).every((status) => status === 429)).toBe(true);

    expect(await statusesOf(other.headers, 1)).toEqual([200]);
    expect(await statusesOf(admin, 1)).toEqual([200]);
    const revoked = await call(`/v1/api-keys/${flood.key_id}`, { method: "DELETE", headers: admin });
    expect(revoked.status).toBe(204);
    expect(await statusesOf(flood.headers, 1)).toEqual([401]);
  });
});

describe("callers flooding together", () => {
  it("leave the admins the reserve of the tenant's window: the audit log is read and sessions cancelled in bulk", async () => {
    // 20 a minute: a share of 10 each, 2 kept for the admins, so two callers fill all the rest.
    const { tenantId, admin } = await tenantOfTen(20);
    const a = await bearer({ tenantId, subject: "flood-a", scopes: ["sessions:read"] });
    const b = await bearer({ tenantId, subject: "flood-b", scopes: ["sessions:read"] });
    await awayFromWindowEnd();
    expect((await statusesOf(a, 12)).filter((status) => status === 200)).toHaveLength(10);
    expect((await statusesOf(b, 12)).filter((status) => status === 200)).toHaveLength(8);
    expect(await statusesOf(await bearer({ tenantId, subject: "third", scopes: ["sessions:read"] }), 1)).toEqual([429]);

    const log = await call("/v1/tenant/audit-log", { headers: admin });
    expect(log.status).toBe(200);
    expect(log.headers.get("RateLimit-Policy")).toBe('"tenant";q=20;w=60, "caller";q=10;w=60');
    const cancelled = await callJson(`/v1/admin/tenants/${tenantId}/sessions/cancel`, "POST", {}, admin);
    expect(cancelled.status).toBe(200);
    // The reserve is a floor, not a lane of its own: spent, the admins wait like everyone.
    expect(await statusesOf(admin, 1)).toEqual([429]);
  });
});

describe("the admin floor", () => {
  it("lets an admin create, list and revoke keys, and a platform admin suspend, while the tenant's window is full", async () => {
    const { tenantId, admin } = await tenantOfTen();
    const first = await createKey(admin, ["sessions:read"]);
    const second = await createKey(admin, ["sessions:read"]);
    const adminKey = await createKey(admin, ["tenant:admin"]);
    await awayFromWindowEnd();
    await statusesOf(first.headers, 5);
    await statusesOf(second.headers, 5);
    // The window is full for everyone once the admin spent the reserve: its own reads, and a reader on the key paths.
    expect(await statusesOf(admin, 2)).toEqual([200, 429]);
    const reader = await call("/v1/api-keys", { headers: first.headers });
    expect(reader.status).toBe(429);

    const created = await createKey(admin, ["sessions:read"]);
    const listed = await call("/v1/api-keys", { headers: admin });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("RateLimit")).toMatch(/^"admin";r=\d+;t=\d+$/);
    expect((await call(`/v1/api-keys/${created.key_id}`, { method: "DELETE", headers: admin })).status).toBe(204);
    // An admin's API key too: its scopes are read from its record in the same call that admits it.
    expect(await statusesOf(adminKey.headers, 1)).toEqual([429]);
    expect((await call(`/v1/api-keys/${first.key_id}`, { method: "DELETE", headers: adminKey.headers })).status).toBe(204);

    // A platform admin whose own tenant is this one; the suspension it makes is of another tenant.
    const root = await bearer({ tenantId, subject: "root", scopes: ["platform:admin"] });
    const other = freshTenant();
    // A tenant that exists (its first request made it): suspending an id never seen is a 404.
    expect((await call("/v1/tenant", { headers: await bearer({ tenantId: other, scopes: ["sessions:read"] }) })).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${other}/suspend`, { method: "POST", headers: root })).status).toBe(200);
    expect((await call(`/v1/admin/tenants/${other}/unsuspend`, { method: "POST", headers: root })).status).toBe(200);
  });
});

describe("RateLimit-Policy and RateLimit", () => {
  it("tell the caller its windows and the one closest to running out, on successes and on the 429, which keeps Retry-After", async () => {
    const { tenantId, admin } = await tenantOfTen();
    const a = await createKey(admin, ["sessions:read"]);
    const b = await createKey(admin, ["sessions:read"]);
    await awayFromWindowEnd();

    const firstRead = await call("/v1/tenant", { headers: a.headers });
    expect(firstRead.status).toBe(200);
    expect(firstRead.headers.get("RateLimit-Policy")).toBe('"tenant";q=9;w=60, "caller";q=5;w=60');
    const current = firstRead.headers.get("RateLimit")!;
    expect(current).toMatch(/^"caller";r=4;t=\d+$/);
    const reset = Number(/t=(\d+)/.exec(current)![1]);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(RATE_WINDOW_MS / 1000);

    await statusesOf(a.headers, 4);
    const limited = await call("/v1/tenant", { headers: a.headers });
    expect(limited.status).toBe(429);
    expect(await readProblem(limited)).toMatchObject({ code: "rate_limited" });
    expect(limited.headers.get("RateLimit-Policy")).toBe('"tenant";q=9;w=60, "caller";q=5;w=60');
    const refusedAt = /^"caller";r=0;t=(\d+)$/.exec(limited.headers.get("RateLimit") ?? "");
    expect(refusedAt).not.toBeNull();
    expect(limited.headers.get("Retry-After")).toBe(refusedAt![1]);

    // With 7 of the 9 a caller other than an admin may spend, a third caller's share outlasts the tenant's window, which is then the one reported.
    await statusesOf(b.headers, 2);
    const third = await bearer({ tenantId, subject: "third", scopes: ["sessions:read"] });
    const thirdRead = await call("/v1/tenant", { headers: third });
    expect(thirdRead.status).toBe(200);
    expect(thirdRead.headers.get("RateLimit")).toMatch(/^"tenant";r=1;t=\d+$/);
    await statusesOf(third, 1);
    const tenantFull = await call("/v1/tenant", { headers: third });
    expect(tenantFull.status).toBe(429);
    expect(tenantFull.headers.get("RateLimit")).toMatch(/^"tenant";r=0;t=\d+$/);
    expect(tenantFull.headers.get("Retry-After")).not.toBeNull();
  });

  it("are on the answers of a route that fails after admission, and not on a 401", async () => {
    const { tenantId } = await tenantOfTen();
    const forbidden = await call("/v1/tenant/settings", { headers: await bearer({ tenantId, scopes: ["sessions:read"] }) });
    expect(forbidden.status).toBe(403);
    expect(forbidden.headers.get("RateLimit")).toMatch(/^"caller";r=4;t=\d+$/);
    const unauthenticated = await call("/v1/tenant");
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("RateLimit")).toBeNull();
    expect(unauthenticated.headers.get("RateLimit-Policy")).toBeNull();
  });
});
