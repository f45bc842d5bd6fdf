/**
 * What stops a schedule: the revocation or expiry of the API key it is bound to, or the expiry of
 * the token of a creator it is bound to (for good, shown as disabled with the reason, the slot that
 * found it recorded as refused), and its tenant's suspension (for as long as it lasts).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { keyProblem } from "../../src/schedules/fire";
import { call } from "../support/api";
import { bearer, freshTenant, platformToken } from "../support/tokens";
import type { Principal } from "../../src/auth/principal";
import { creatorExpired, scheduleCreator } from "../../src/schedules/binding";
import { mockModel, uniqueKey } from "../support/mock-client";
import { createSchedule, patch, type Schedule } from "../api/schedules/helpers";
import { apiKeyOf, sleep, storedFirings, storedSchedule, until } from "./helpers";

const EVERY_SECOND = "* * * * * *";

describe("a schedule created with an API key", () => {
  it("is disabled for good, with the reason, as soon as the key is revoked", async () => {
    const tenantId = freshTenant();
    const key = await apiKeyOf(tenantId);
    const schedule = await createSchedule(key.headers, { cron: "0 0 1 1 *", session: { input: "x" } });
    // Bound to the key, with no end of its own.
    expect(schedule.expires_at).toBeNull();
    const admin = await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"] });
    expect((await call(`/v1/api-keys/${key.key_id}`, { method: "DELETE", headers: admin })).status).toBe(204);

    const read = (await (await call(`/v1/schedules/${schedule.id}`, { headers: admin })).json()) as Schedule;
    expect(read).toMatchObject({ status: "disabled", disabled_reason: "api_key_revoked", next_run_at: null, paused: false });
    expect(Date.parse(read.disabled_at!)).toBeGreaterThan(0);
    const resume = await patch(admin, schedule.id, { paused: false });
    expect(resume.status).toBe(409);
  });

  it("stops at its next slot when the revocation did not reach the scheduler, and fires nothing after", async () => {
    const tenantId = freshTenant();
    const key = await apiKeyOf(tenantId);
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(key.headers, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    await until(
      "a first firing",
      () => storedFirings(tenantId, schedule.id),
      (f) => f.length >= 1,
    );
    // Revoked in the tenant's index alone, as if the route's word to the scheduler were lost.
    const revokedAt = Date.now();
    await tenantIndexStub(env, tenantId).revokeApiKey(tenantId, key.key_id, revokedAt);

    const disabled = await until(
      "the schedule disabled",
      () => storedSchedule(tenantId, schedule.id),
      (s) => s.status === "disabled",
    );
    expect(disabled).toMatchObject({ disabled_reason: "api_key_revoked", next_run_at: null });
    const firings = await storedFirings(tenantId, schedule.id);
    // The slot that found the key revoked is recorded as refused, newest of all.
    expect(firings[0]).toMatchObject({ outcome: "failed", error_code: "forbidden", session_id: null, fired_at: disabled.disabled_at });
    expect(firings[0]!.error).toContain("revoked");
    await sleep(2_000);
    expect(await storedFirings(tenantId, schedule.id)).toEqual(firings);
    // Nothing fired for a slot after the revocation was seen.
    for (const firing of firings) expect(Date.parse(firing.fired_at)).toBeLessThanOrEqual(Date.parse(disabled.disabled_at!));
  }, 20_000);

  it("is disabled when the key expires", async () => {
    const tenantId = freshTenant();
    const key = await apiKeyOf(tenantId, { expires_at: new Date(Date.now() + 2_000).toISOString() });
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(key.headers, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    const disabled = await until(
      "the schedule disabled",
      () => storedSchedule(tenantId, schedule.id),
      (s) => s.status === "disabled",
    );
    expect(disabled.disabled_reason).toBe("api_key_expired");
  }, 20_000);

  it("keyProblem tells a revoked key from an expired one, and lets a standing key through", () => {
    const now = Date.parse("2030-01-01T00:00:00Z");
    expect(keyProblem(null, now)).toBe("api_key_revoked");
    expect(keyProblem({ revoked_at: "2029-12-31T00:00:00.000Z", expires_at: null }, now)).toBe("api_key_revoked");
    expect(keyProblem({ revoked_at: null, expires_at: "2030-01-01T00:00:00.000Z" }, now)).toBe("api_key_expired");
    expect(keyProblem({ revoked_at: null, expires_at: "2030-01-01T00:00:01.000Z" }, now)).toBeNull();
    expect(keyProblem({ revoked_at: null, expires_at: null }, now)).toBeNull();
  });
});

describe("a schedule created with a JWT", () => {
  it("by a plain user ends with the token: the first slot after its expiry is refused, and nothing fires after", async () => {
    const tenantId = freshTenant();
    const model = mockModel(uniqueKey("model"));
    const token = await platformToken({ tenantId, subject: "user-1", scopes: ["sessions:read", "sessions:write"], expiresIn: 3 });
    const exp = JSON.parse(atob(token.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))).exp as number;
    const schedule = await createSchedule(
      { Authorization: `Bearer ${token}` },
      { cron: EVERY_SECOND, session: { input: "x", model: model.key } },
    );
    expect(Date.parse(schedule.expires_at!)).toBe(exp * 1000);

    const disabled = await until(
      "the schedule disabled",
      () => storedSchedule(tenantId, schedule.id),
      (s) => s.status === "disabled",
      15_000,
    );
    expect(disabled).toMatchObject({ disabled_reason: "creator_expired", next_run_at: null });
    expect(Date.parse(disabled.disabled_at!)).toBeGreaterThanOrEqual(exp * 1000);
    const firings = await storedFirings(tenantId, schedule.id);
    expect(firings[0]).toMatchObject({ outcome: "failed", error_code: "forbidden", session_id: null });
    expect(firings[0]!.error).toContain("expired");
    // Every firing that acted was recorded before the token's expiry.
    for (const firing of firings.slice(1)) expect(Date.parse(firing.fired_at)).toBeLessThan(exp * 1000);
    await sleep(1_500);
    expect(await storedFirings(tenantId, schedule.id)).toEqual(firings);
  }, 20_000);

  it("by a tenant admin is bound to the tenant: it fires on after the token expired", async () => {
    const tenantId = freshTenant();
    const model = mockModel(uniqueKey("model"));
    const admin = await bearer({ tenantId, subject: "admin", scopes: ["tenant:admin"], expiresIn: 2 });
    const expiredAt = Date.now() + 2_000;
    const schedule = await createSchedule(admin, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    expect(schedule.expires_at).toBeNull();
    await until(
      "a firing after the token expired",
      () => storedFirings(tenantId, schedule.id),
      (f) => f.some((firing) => Date.parse(firing.fired_at) > expiredAt + 1_000 && firing.outcome === "started"),
      15_000,
    );
    expect((await storedSchedule(tenantId, schedule.id)).status).toBe("active");
    await patch(await bearer({ tenantId, scopes: ["tenant:admin"] }), schedule.id, { paused: true });
  }, 20_000);
});

describe("scheduleCreator: whom a new schedule is bound to", () => {
  const base = { tenantId: "acme", subject: "user-1", expiresAt: Date.parse("2030-01-01T00:05:00Z") };
  const now = Date.parse("2030-01-01T00:00:00Z");
  it.each<[string, Principal, number | null]>([
    ["an API key: to the key", { ...base, via: "api_key", scopes: ["sessions:write"], keyId: "key_0123456789abcdef01234567" }, null],
    [
      "a token exchanged from a key: to the key",
      { ...base, via: "jwt", scopes: ["sessions:write"], keyId: "key_0123456789abcdef01234567" },
      null,
    ],
    ["a tenant admin's JWT: to the tenant", { ...base, via: "jwt", scopes: ["tenant:admin"] }, null],
    [
      "a plain JWT: to its subject, until the token's exp",
      { ...base, via: "jwt", scopes: ["sessions:read", "sessions:write"] },
      base.expiresAt,
    ],
  ])("%s", (_name, principal, expiresAt) => {
    expect(scheduleCreator(principal, now).expires_at).toBe(expiresAt);
  });

  it("binds a plain JWT without an expiry to nothing: it ends at once", () => {
    const creator = scheduleCreator({ tenantId: "acme", subject: "u", via: "jwt", scopes: ["sessions:write"] }, now);
    expect(creatorExpired(creator, now)).toBe(true);
  });
});

describe("a suspended tenant's schedule", () => {
  it("fires nothing while the tenant is suspended, and again once it is not", async () => {
    const tenantId = freshTenant();
    const owner = await bearer({ tenantId, scopes: ["sessions:read", "sessions:write"] });
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(owner, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    await until(
      "a first firing",
      () => storedFirings(tenantId, schedule.id),
      (f) => f.length >= 1,
    );
    const index = tenantIndexStub(env, tenantId);
    await index.suspend(tenantId);
    const suspendedAt = Date.now();

    await sleep(2_500);
    const during = await storedFirings(tenantId, schedule.id);
    expect(during.filter((firing) => Date.parse(firing.fired_at) > suspendedAt)).toEqual([]);
    // The schedule itself stays active: suspension is not the schedule's state.
    expect((await storedSchedule(tenantId, schedule.id)).status).toBe("active");

    await index.unsuspend(tenantId);
    const resumedAt = Date.now();
    const after = await until(
      "a firing after the suspension",
      () => storedFirings(tenantId, schedule.id),
      (f) => f.some((firing) => Date.parse(firing.fired_at) >= resumedAt && firing.outcome === "started"),
    );
    // The slots that passed while suspended were not made up for: one firing per slot after it.
    expect(
      after.filter((firing) => Date.parse(firing.scheduled_at) > suspendedAt && Date.parse(firing.scheduled_at) < resumedAt - 1_000),
    ).toEqual([]);
    await patch(owner, schedule.id, { paused: true });
  }, 20_000);
});
