/**
 * What stops a schedule: the revocation or expiry of the API key that created it (for good, shown
 * as disabled with the reason), and its tenant's suspension (for as long as it lasts).
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { keyProblem } from "../../src/schedules/fire";
import { call } from "../support/api";
import { bearer, freshTenant } from "../support/tokens";
import { mockModel, uniqueKey } from "../support/mock-client";
import { createSchedule, patch, type Schedule } from "../api/schedules/helpers";
import { apiKeyOf, sleep, storedFirings, storedSchedule, until } from "./helpers";

const EVERY_SECOND = "* * * * * *";

describe("a schedule created with an API key", () => {
  it("is disabled for good, with the reason, as soon as the key is revoked", async () => {
    const tenantId = freshTenant();
    const key = await apiKeyOf(tenantId);
    const schedule = await createSchedule(key.headers, { cron: "0 0 1 1 *", session: { input: "x" } });
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
    await until("a first firing", () => storedFirings(tenantId, schedule.id), (f) => f.length >= 1);
    // Revoked in the tenant's index alone, as if the route's word to the scheduler were lost.
    const revokedAt = Date.now();
    await tenantIndexStub(env, tenantId).revokeApiKey(tenantId, key.key_id, revokedAt);

    const disabled = await until("the schedule disabled", () => storedSchedule(tenantId, schedule.id), (s) => s.status === "disabled");
    expect(disabled).toMatchObject({ disabled_reason: "api_key_revoked", next_run_at: null });
    const firings = await storedFirings(tenantId, schedule.id);
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
    const disabled = await until("the schedule disabled", () => storedSchedule(tenantId, schedule.id), (s) => s.status === "disabled");
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

describe("a suspended tenant's schedule", () => {
  it("fires nothing while the tenant is suspended, and again once it is not", async () => {
    const tenantId = freshTenant();
    const owner = await bearer({ tenantId, scopes: ["sessions:read", "sessions:write"] });
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(owner, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    await until("a first firing", () => storedFirings(tenantId, schedule.id), (f) => f.length >= 1);
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
    const after = await until("a firing after the suspension", () => storedFirings(tenantId, schedule.id), (f) =>
      f.some((firing) => Date.parse(firing.fired_at) >= resumedAt && firing.outcome === "started"),
    );
    // The slots that passed while suspended were not made up for: one firing per slot after it.
    expect(after.filter((firing) => Date.parse(firing.scheduled_at) > suspendedAt && Date.parse(firing.scheduled_at) < resumedAt - 1_000)).toEqual([]);
    await patch(owner, schedule.id, { paused: true });
  }, 20_000);
});
