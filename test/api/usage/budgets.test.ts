import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../../src/objects";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { bearer, freshTenant } from "../../support/tokens";
import { type Caller, caller, cancelQuietly, createSession, getJson, post, waitForStatus } from "../sessions/helpers";
import { admin, answer, GET_TIME, keyCaller, toolLoop, usageOf } from "./helpers";

/** Each step bills 15 tokens; on a `priced-` model, 0.02 USD (see MODEL_PRICES in the test environment). */
const STEP = { input_tokens: 10, output_tokens: 5 };

/** Runs a session that would loop on a tool for ever, and returns how it ended. */
async function runaway(who: Caller, prefix: string) {
  const model = mockModel(uniqueKey(prefix));
  await model.script(...[1, 2, 3, 4].map((n) => toolLoop(`toolu_b${n}`, STEP)));
  const session = await createSession(who, { input: "loop", model: model.key, tools: GET_TIME });
  const done = await waitForStatus(who, session.id, ["done", "failed", "waiting_budget"]);
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
  it("max_cost_usd_per_day makes a run going wait in waiting_budget, then refuses a start", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_cost_usd_per_day: 0.03 });
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const { done, calls, model } = await runaway(alice, "priced");
    // 0.02 after the first call, 0.04 after the second: the run stops before a third.
    expect(done).toMatchObject({ status: "waiting_budget", stop_reason: null, usage: { steps: 2 } });
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
    expect(done).toMatchObject({ status: "waiting_budget", stop_reason: null, usage: { steps: 2 } });
    expect(calls).toBe(2);
    await expectRefused(alice, model, /user's daily token budget/);
    // Bob has spent nothing: his runs start.
    const bob = await caller(tenantId, ["sessions:read", "sessions:write"], "bob");
    expect((await runaway(bob, "plain")).done).toMatchObject({ status: "waiting_budget", usage: { steps: 2 } });
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
    expect(done).toMatchObject({ status: "waiting_budget", stop_reason: null, usage: { steps: 2 } });
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

describe("budget reservations", () => {
  /** Starts `n` sessions at once through `who`; the admitted ones and the statuses of all. */
  async function startTogether(who: Caller, n: number, model: string, limits: Record<string, number>) {
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => callJson("/v1/sessions", "POST", { input: `go ${i}`, model, limits }, who.headers)),
    );
    const admitted: string[] = [];
    for (const res of answers) {
      if (res.status === 201) admitted.push(((await res.json()) as { id: string }).id);
      else {
        expect(res.status).toBe(429);
        expect((await readProblem(res)).detail).toMatch(/API key's daily token budget/);
      }
    }
    return admitted;
  }

  /** Waits until the index lists every one of `ids` as ended, which is when their reservations are settled. */
  async function untilListedDone(who: Caller, ids: readonly string[]): Promise<void> {
    const deadline = Date.now() + 8_000;
    for (;;) {
      const page = await getJson<{ data: { id: string; status: string }[] }>(who, "/v1/sessions?limit=100");
      if (ids.every((id) => page.data.some((s) => s.id === id && s.status === "done"))) return;
      if (Date.now() > deadline) throw new Error(`still listed: ${JSON.stringify(page.data)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it("ten concurrent starts on a key with a 1,000-token budget overspend it by at most one run's reservation", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const key = await keyCaller(boss, { max_tokens_per_day: 1000 });
    const model = mockModel(uniqueKey("plain"));
    // Each run makes one call of 400 tokens, its whole `max_tokens_per_session`.
    await model.script(...Array.from({ length: 10 }, () => answer({ input_tokens: 300, output_tokens: 100 })));
    const admitted = await startTogether(key, 10, model.key, { max_tokens_per_session: 400 });
    // 0, 400 and 800 reserved are below 1,000; a fourth start sees 1,200 held.
    expect(admitted.length).toBe(3);
    for (const id of admitted) await waitForStatus(key, id, ["done"]);
    await untilListedDone(key, admitted);
    const { totals } = await usageOf(boss);
    expect(totals.input_tokens + totals.output_tokens).toBeLessThanOrEqual(1000 + 400);
    expect((await model.requests()).length).toBe(3);
  });

  it("a run's reservation is replaced by what it spent once it ends", async () => {
    const tenantId = freshTenant();
    const key = await keyCaller(await admin(tenantId), { max_tokens_per_day: 1000 });
    const model = mockModel(uniqueKey("plain"));
    await model.script(...Array.from({ length: 4 }, () => answer({ input_tokens: 50, output_tokens: 50 })));
    const first = await startTogether(key, 3, model.key, { max_tokens_per_session: 400 });
    expect(first.length).toBe(3);
    await untilListedDone(key, first);
    // 300 spent, nothing held: a fourth run starts (had the reservations stayed, 1,500 would be held).
    expect(await startTogether(key, 1, model.key, { max_tokens_per_session: 400 })).toHaveLength(1);
  });

  it("a later run of a session reserves what its own cap leaves, so another session still starts", async () => {
    const tenantId = freshTenant();
    const key = await keyCaller(await admin(tenantId), { max_tokens_per_day: 1000 });
    const model = mockModel(uniqueKey("plain"));
    await model.script(answer({ input_tokens: 50, output_tokens: 50 }), { hang: true }, answer({ input_tokens: 5, output_tokens: 5 }));
    const small = await createSession(key, { input: "one", model: model.key, limits: { max_tokens_per_session: 400 } });
    await untilListedDone(key, [small.id]);
    // The second run holds 400 - 100 = 300, not the tenant's cap: 100 spent and 300 held leave room.
    expect((await post(key, `/v1/sessions/${small.id}/messages`, { input: "two" })).status).toBe(202);
    await model.waitForRequests(2);
    const other = await callJson("/v1/sessions", "POST", { input: "go", model: model.key }, key.headers);
    expect(other.status).toBe(201);
    await cancelQuietly(key, small.id);
  });
});
