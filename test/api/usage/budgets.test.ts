import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { type Caller, caller, createSession, waitForStatus } from "../sessions/helpers";
import { admin, GET_TIME, keyCaller, toolLoop } from "./helpers";

/** Each step bills 15 tokens; on a `priced-` model, 0.02 USD (see MODEL_PRICES in the test environment). */
const STEP = { input_tokens: 10, output_tokens: 5 };

/** Runs a session that would loop on a tool for ever, and returns how it ended. */
async function runaway(who: Caller, prefix: string) {
  const model = mockModel(uniqueKey(prefix));
  await model.script(...[1, 2, 3, 4].map((n) => toolLoop(`toolu_b${n}`, STEP)));
  const session = await createSession(who, { input: "loop", model: model.key, tools: GET_TIME });
  const done = await waitForStatus(who, session.id, ["done", "failed"]);
  return { done, calls: (await model.requests()).length, model: model.key };
}

/** A start refused as over a budget: 429, `rate_limited`, Retry-After up to the next UTC midnight. */
async function expectRefused(who: Caller, model: string, detail: RegExp): Promise<void> {
  const res = await callJson("/v1/sessions", "POST", { input: "more", model }, who.headers);
  expect(res.status).toBe(429);
  const retryAfter = Number(res.headers.get("Retry-After"));
  const untilMidnight = Math.ceil((Math.ceil(Date.now() / 86_400_000) * 86_400_000 - Date.now()) / 1000);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(Math.abs(retryAfter - untilMidnight)).toBeLessThanOrEqual(2);
  const problem = await readProblem(res);
  expect(problem.type).toMatch(/rate_limited/);
  expect(problem.detail).toMatch(detail);
}

describe("daily budgets", () => {
  it("max_cost_usd_per_day stops a run going with budget_limit, then refuses a start", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_cost_usd_per_day: 0.03 });
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const { done, calls, model } = await runaway(alice, "priced");
    // 0.02 after the first call, 0.04 after the second: the run stops before a third.
    expect(done).toMatchObject({ status: "done", stop_reason: "budget_limit", usage: { steps: 2 } });
    expect(calls).toBe(2);
    await expectRefused(alice, model, /cost budget/);
    // The tenant's cost is everyone's: another user is refused too.
    await expectRefused(await caller(tenantId, ["sessions:read", "sessions:write"], "bob"), model, /cost budget/);
  });

  it("max_tokens_per_day_per_subject stops each creator at its own budget", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_tokens_per_day_per_subject: 25 });
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const { done, calls, model } = await runaway(alice, "plain");
    expect(done).toMatchObject({ status: "done", stop_reason: "budget_limit", usage: { steps: 2 } });
    expect(calls).toBe(2);
    await expectRefused(alice, model, /user's daily token budget/);
    // Bob has spent nothing: his runs start.
    const bob = await caller(tenantId, ["sessions:read", "sessions:write"], "bob");
    expect((await runaway(bob, "plain")).done).toMatchObject({ stop_reason: "budget_limit" });
  });

  it("an API key's max_tokens_per_day stops the sessions it creates, and not the tenant's others", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const key = await keyCaller(boss, { max_tokens_per_day: 25 });
    const listed = (await (await call("/v1/api-keys", { headers: boss.headers })).json()) as {
      data: { key_id: string; max_tokens_per_day: number | null }[];
    };
    expect(listed.data.find((k) => k.key_id === key.keyId)?.max_tokens_per_day).toBe(25);
    const { done, calls, model } = await runaway(key, "plain");
    expect(done).toMatchObject({ status: "done", stop_reason: "budget_limit", usage: { steps: 2 } });
    expect(calls).toBe(2);
    await expectRefused(key, model, /API key's daily token budget/);
    const other = await keyCaller(boss);
    expect((await createSession(other, { input: "fine", model })).status).toMatch(/running|queued|done/);
  });

  it("refuses a budget below 0 with 400", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const res = await callJson("/v1/api-keys", "POST", { name: "k", scopes: ["sessions:read"], max_tokens_per_day: -1 }, boss.headers);
    expect(res.status).toBe(400);
    const ops = await bearer({ tenantId: freshTenant("ops"), scopes: ["platform:admin"], subject: "ops" });
    for (const limits of [{ max_cost_usd_per_day: -0.5 }, { max_tokens_per_day_per_subject: -1 }]) {
      const put = await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", limits, ops);
      expect(put.status, JSON.stringify(limits)).toBe(400);
    }
  });
});
