/** The tenant's max_concurrent_runs, enforced at every start: create with input, a new message, resume. */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { sessionValue } from "../../../src/sessions/client";
import { admitRun, startWithSlot } from "../../../src/sessions/run-admission";
import { BUILTIN_DEFAULT_LIMITS } from "../../../src/limits";
import { PROBLEM_TYPE_BASE } from "../../../src/api/errors";
import type { Session } from "../../../src/session-config/types";
import { callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { caller, cancelQuietly, createSession, post } from "./helpers";

const MAX_RUNS = 10;

async function setTenantLimits(tenantId: string, limits: Record<string, unknown>): Promise<void> {
  const platformAdmin = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "operator" });
  const res = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", limits, platformAdmin);
  expect(res.status).toBe(200);
}

describe("concurrent runs", () => {
  it("refuses the 11th run with 429 and Retry-After, and admits one again once a slot frees", async () => {
    const who = await caller();
    await setTenantLimits(who.tenantId, { max_concurrent_runs: MAX_RUNS });
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true, repeat: MAX_RUNS + 1 });

    const running: Session[] = [];
    try {
      for (let i = 0; i < MAX_RUNS; i++) running.push(await createSession(who, { input: `run ${i}`, model: model.key }));
      expect(running.every((s) => s.status === "running")).toBe(true);

      const refused = await callJson("/v1/sessions", "POST", { input: "one too many", model: model.key }, who.headers);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
      expect(await readProblem(refused)).toMatchObject({
        type: `${PROBLEM_TYPE_BASE}rate_limited`,
        detail: expect.stringContaining(`${MAX_RUNS} runs`),
      });

      // A session without input starts nothing and is still created; its first message is refused.
      const idle = await createSession(who, { model: model.key });
      const message = await post(who, `/v1/sessions/${idle.id}/messages`, { input: "start" });
      expect(message.status).toBe(429);
      expect(message.headers.get("Retry-After")).not.toBeNull();
      await message.body?.cancel();

      await cancelQuietly(who, running.shift()!.id);
      const admitted = await post(who, `/v1/sessions/${idle.id}/messages`, { input: "start" });
      expect(admitted.status).toBe(202);
      running.push((await admitted.json()) as Session);
    } finally {
      for (const session of running) await cancelQuietly(who, session.id);
    }
  });

  it("counts runs per tenant: another tenant's runs take none of its slots", async () => {
    const busy = await caller();
    const other = await caller();
    await setTenantLimits(busy.tenantId, { max_concurrent_runs: 1 });
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true, repeat: 2 });
    const first = await createSession(busy, { input: "hold the slot", model: model.key });
    try {
      expect((await callJson("/v1/sessions", "POST", { input: "no room", model: model.key }, busy.headers)).status).toBe(429);
      const elsewhere = await createSession(other, { input: "fine", model: model.key });
      await cancelQuietly(other, elsewhere.id);
    } finally {
      await cancelQuietly(busy, first.id);
    }
  });
});

describe("starts that do not happen, and tenants that change", () => {
  it("gives back the slot of a start that the session object refused", async () => {
    const who = await caller();
    const index = tenantIndexStub(env, who.tenantId);
    expect(await index.acquireRun(who.tenantId, "ses_refused", 1, Date.now())).toEqual({ ok: true });
    expect(await index.acquireRun(who.tenantId, "ses_other", 1, Date.now())).toMatchObject({ ok: false, code: "busy" });
    const refused = startWithSlot(env, who.tenantId, "ses_refused", async () => sessionValue({ ok: false, reason: "run_going" }));
    await expect(refused).rejects.toMatchObject({ status: 409 });
    // With max 1, another session gets the slot at once instead of after the reservation expires.
    expect(await index.acquireRun(who.tenantId, "ses_other", 1, Date.now())).toEqual({ ok: true });
  });

  it("refuses a start with 403 once the tenant is suspended, even after admission", async () => {
    const who = await caller();
    const index = tenantIndexStub(env, who.tenantId);
    await index.suspend(who.tenantId);
    await expect(
      admitRun(
        env,
        { tenantId: who.tenantId, subject: "user-1" },
        "ses_late",
        BUILTIN_DEFAULT_LIMITS,
        { maxTokens: BUILTIN_DEFAULT_LIMITS.max_tokens_per_session, usedTokens: 0 },
        Date.now(),
      ),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("applies a tenant's lowered limits to its existing sessions at their next run", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    expect(session.limits.max_steps_per_run).toBe(BUILTIN_DEFAULT_LIMITS.max_steps_per_run);
    await setTenantLimits(who.tenantId, { max_steps_per_run: 2, max_tool_output_chars: 100 });
    const started = await post(who, `/v1/sessions/${session.id}/messages`, { input: "go" });
    expect(started.status).toBe(202);
    expect(((await started.json()) as Session).limits).toMatchObject({ max_steps_per_run: 2, max_tool_output_chars: 100 });
  });
});
