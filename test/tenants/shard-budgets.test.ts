/**
 * Daily budgets of a tenant spread over shards, through the public API: one count of the tenant's
 * spending across every shard (no shard alone reaches the budget), reservations of runs going on
 * different shards held against each other, a waiting session on a shard woken by a raise, and
 * the index's side of the exchange (what a push keeps, what it drops).
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub, tenantShardStub } from "../../src/objects";
import { fnv1a, type ShardRef, shardKey } from "../../src/shared/shard-layout";
import { utcDay } from "../../src/shared/validate";
import { callJson, readProblem } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { bearer, freshTenant } from "../support/tokens";
import { type Caller, caller, createSession, getJson, post, waitForStatus } from "../api/sessions/helpers";
import { expectIndexRejects } from "./helpers";
import { eventually } from "../api/subagents/helpers";
import { admin, answer, GET_TIME, keyCaller, toolLoop } from "../api/usage/helpers";

/** Each model call bills 15 tokens. */
const STEP = { input_tokens: 10, output_tokens: 5 };

const OPS_TENANT = freshTenant("ops-shard-budgets");
const platformAdmin = () => bearer({ tenantId: OPS_TENANT, subject: "ops-1", scopes: ["platform:admin"] });
const refOf = (id: string, shards: number): ShardRef => ({ generation: 1, shards, k: fnv1a(id) % shards });

async function sharded(tenantId: string, shards: number, limits: Record<string, unknown>): Promise<void> {
  const admin = await platformAdmin();
  expect((await callJson(`/v1/admin/tenants/${tenantId}/shards`, "PUT", { shards }, admin)).status).toBe(200);
  expect((await callJson(`/v1/admin/tenants/${tenantId}/limits`, "PUT", limits, admin)).status).toBeLessThan(300);
}

/** Idle sessions until `count` of them sit on different shards: those, one per shard. */
async function onDistinctShards(who: Caller, shards: number, count: number, model: string): Promise<string[]> {
  const byShard = new Map<number, string>();
  for (let made = 0; byShard.size < count; made++) {
    if (made > 100) throw new Error("the hash never spread the sessions");
    const { id } = await createSession(who, { model });
    if (!byShard.has(refOf(id, shards).k)) byShard.set(refOf(id, shards).k, id);
  }
  return [...byShard.values()];
}

/** A shard's own tokens of today, read in its storage (a shard no session reached has no tables). */
async function shardTokens(tenantId: string, ref: ShardRef): Promise<number> {
  return runInDurableObject(tenantShardStub(env, tenantId, ref), (_instance, state) =>
    state.storage.sql.exec(`SELECT name FROM sqlite_master WHERE name = 'usage_daily'`).toArray().length === 0
      ? 0
      : (state.storage.sql
          .exec<{ n: number | null }>(`SELECT SUM(input_tokens + output_tokens) AS n FROM usage_daily WHERE day = ?`, utcDay(Date.now()))
          .one().n ?? 0),
  );
}

describe("daily budgets of a sharded tenant", () => {
  it("counts the tenant's tokens across every shard: a start is refused once they reach the budget, though no shard alone does", async () => {
    const who = await caller();
    await sharded(who.tenantId, 4, { max_tokens_per_day: 100 });
    const model = mockModel(uniqueKey("spread"));
    await model.script(...Array.from({ length: 7 }, () => answer(STEP)));
    const ids = await onDistinctShards(who, 4, 3, model.key);
    while (ids.length < 7) ids.push((await createSession(who, { model: model.key })).id);
    for (const id of ids) {
      // The run before holds its reservation until its shard's push of its end (a moment after it ends): a start may wait for it.
      const started = await eventually(
        () => post(who, `/v1/sessions/${id}/messages`, { input: "go" }),
        (res) => res.status !== 429,
      );
      expect(started.status).toBeLessThan(300);
      await waitForStatus(who, id, ["done"]);
    }
    const index = tenantIndexStub(env, who.tenantId);
    // 7 runs of 15: 105, as the index counts once every shard sent its spending.
    await eventually(
      () => index.tokensToday(who.tenantId, Date.now()),
      (n) => n === 105,
    );
    const perShard = await Promise.all([0, 1, 2, 3].map((k) => shardTokens(who.tenantId, { generation: 1, shards: 4, k })));
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(105);
    expect(Math.max(...perShard)).toBeLessThan(100);
    const refused = await callJson("/v1/sessions", "POST", { input: "more", model: model.key }, who.headers);
    expect(refused.status).toBe(429);
    expect((await readProblem(refused)).detail).toMatch(/daily token budget is used up/);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
  });

  it("holds the reservations of runs going on different shards against each other, and frees one as its run ends", async () => {
    const who = await caller();
    // Each run holds 40 of 100: three may go (the third sees 80 held), the fourth sees 120 and waits for one to end.
    await sharded(who.tenantId, 4, { max_tokens_per_day: 100, max_tokens_per_session: 40 });
    const model = mockModel(uniqueKey("held"));
    await model.script(...Array.from({ length: 4 }, () => ({ hang: true as const })));
    const [a, b, c, d] = await onDistinctShards(who, 4, 4, model.key);
    for (const id of [a!, b!, c!]) {
      expect((await post(who, `/v1/sessions/${id}/messages`, { input: "hang" })).status).toBeLessThan(300);
      await waitForStatus(who, id, ["running"]);
    }
    const held = await post(who, `/v1/sessions/${d}/messages`, { input: "hang" });
    expect(held.status).toBe(429);
    expect((await readProblem(held)).detail).toMatch(/Runs in progress hold the rest of the tenant's daily token budget/);
    // The index holds each under its shard's name.
    const reservations = await runInDurableObject(tenantIndexStub(env, who.tenantId), (_instance, state) =>
      state.storage.sql.exec<{ session_id: string; shard: string }>(`SELECT session_id, shard FROM budget_reservations`).toArray(),
    );
    expect(new Map(reservations.map((r) => [r.session_id, r.shard]))).toEqual(
      new Map([a!, b!, c!].map((id) => [id, shardKey(refOf(id, 4))])),
    );
    expect((await post(who, `/v1/sessions/${a}/cancel`)).status).toBeLessThan(300);
    await waitForStatus(who, a!, ["cancelled"]);
    // The cancelled run's shard tells the index its reservation ended: the fourth run may start.
    const started = await eventually(
      () => post(who, `/v1/sessions/${d}/messages`, { input: "hang" }),
      (res) => res.status !== 429,
    );
    expect(started.status).toBeLessThan(300);
    for (const id of [b!, c!, d!]) await post(who, `/v1/sessions/${id}/cancel`);
  });

  it("answers a session on one shard with the spending of the others: it waits at its key's budget a step early, and a raise wakes it there", async () => {
    const tenantId = freshTenant();
    await sharded(tenantId, 4, {});
    const boss = await admin(tenantId);
    const key = await keyCaller(boss, { max_tokens_per_day: 25 });
    // B spends 15 of the key's 25 on its shard.
    const first = mockModel(uniqueKey("first"));
    await first.script(answer(STEP));
    const b = await createSession(key, { model: first.key });
    expect((await post(key, `/v1/sessions/${b.id}/messages`, { input: "go" })).status).toBeLessThan(300);
    await waitForStatus(key, b.id, ["done"]);
    await eventually(
      () => tenantIndexStub(env, tenantId).tokensToday(tenantId, Date.now()),
      (n) => n === 15,
    );
    // C, on another shard, knows those 15 from its first report: after its own first 15 it waits (alone it would take a second step).
    const second = mockModel(uniqueKey("second"));
    await second.script(toolLoop("toolu_s1", STEP), toolLoop("toolu_s2", STEP), answer(STEP));
    let c = await createSession(key, { model: second.key, tools: GET_TIME });
    while (refOf(c.id, 4).k === refOf(b.id, 4).k) c = await createSession(key, { model: second.key, tools: GET_TIME });
    expect((await post(key, `/v1/sessions/${c.id}/messages`, { input: "loop" })).status).toBeLessThan(300);
    expect(await waitForStatus(key, c.id, ["waiting_budget", "done", "failed"])).toMatchObject({
      status: "waiting_budget",
      usage: { steps: 1 },
      budget_wait: { budget: "key_tokens" },
    });
    // A start through the key is judged by the index against what both shards sent.
    const refused = await eventually(
      () => callJson("/v1/sessions", "POST", { input: "more", model: second.key }, key.headers),
      (res) => res.status === 429,
    );
    expect((await readProblem(refused)).detail).toMatch(/API key's daily token budget/);
    await eventually(
      () => getJson<{ data: { id: string }[] }>(boss, "/v1/sessions?status=waiting_budget"),
      (page) => page.data.some((s) => s.id === c.id),
    );
    const raised = await callJson(`/v1/api-keys/${key.keyId}`, "PATCH", { max_tokens_per_day: 1000 }, boss.headers);
    expect(raised.status).toBeLessThan(300);
    expect(await waitForStatus(key, c.id, ["done", "failed"])).toMatchObject({ status: "done", usage: { steps: 3 } });
  });

  it("tells the shards of a key made with a budget: a shard that knew of none asks the index for its next run", async () => {
    const who = await caller();
    await sharded(who.tenantId, 2, {});
    const warm = mockModel(uniqueKey("warm"));
    await warm.script(answer(STEP), answer(STEP));
    // Both shards ran a session: each heard that no daily budget is set.
    for (const id of await onDistinctShards(who, 2, 2, warm.key)) {
      expect((await post(who, `/v1/sessions/${id}/messages`, { input: "go" })).status).toBeLessThan(300);
      await waitForStatus(who, id, ["done"]);
    }
    const key = await keyCaller(await admin(who.tenantId), { max_tokens_per_day: 1000 });
    const hang = mockModel(uniqueKey("hang"));
    await hang.script({ hang: true });
    const session = await createSession(key, { input: "hang", model: hang.key });
    await waitForStatus(key, session.id, ["running"]);
    const held = await runInDurableObject(tenantIndexStub(env, who.tenantId), (_instance, state) =>
      state.storage.sql.exec<{ session_id: string }>(`SELECT session_id FROM budget_reservations`).toArray(),
    );
    expect(held.map((row) => row.session_id)).toEqual([session.id]);
    await post(key, `/v1/sessions/${session.id}/cancel`);
  });

  it("sends from its alarm what it owes: a reservation the index recorded for an answer the shard never heard is dropped", async () => {
    const tenantId = freshTenant();
    await sharded(tenantId, 2, { max_tokens_per_day: 1000 });
    const ref = { generation: 1, shards: 2, k: 0 };
    const index = tenantIndexStub(env, tenantId);
    const run = { sessionId: "ses_lost", maxConcurrent: 5, maxTokensPerDay: 1000, createdBy: "ann", reserveTokens: 100, now: Date.now() };
    const answer = await index.shardSpend(tenantId, shardKey(ref), { day: utcDay(Date.now()), rows: [], held: [], pairs: [] }, run);
    expect(answer).toMatchObject({ admission: { ok: true }, reserved: 100 });
    // The shard never heard that answer (a crash): it holds nothing, and owes a push.
    const shard = tenantShardStub(env, tenantId, ref);
    expect(await shard.acquireRun(tenantId, ref, "ses_other", Date.now())).toMatchObject({ ok: true });
    await shard.releaseRun(tenantId, ref, "ses_other");
    await runInDurableObject(shard, (_instance, state) => state.storage.kv.put("spend_owed", 1));
    expect(await runDurableObjectAlarm(shard)).toBe(true);
    const left = await runInDurableObject(index, (_instance, state) =>
      state.storage.sql.exec(`SELECT session_id FROM budget_reservations`).toArray(),
    );
    expect(left).toEqual([]);
    expect(await runInDurableObject(shard, (_instance, state) => state.storage.kv.get("spend_owed"))).toBeUndefined();
  });

  it("sends a run's spending at its end under a cost budget alone, which holds no reservation", async () => {
    const who = await caller();
    await sharded(who.tenantId, 2, { max_cost_usd_per_day: 5 });
    const model = mockModel(uniqueKey("cost"));
    await model.script(answer(STEP));
    const session = await createSession(who, { input: "go", model: model.key });
    await waitForStatus(who, session.id, ["done"]);
    // Nothing was reserved, so nothing is owed: the run's end alone sends its 15 tokens to the index.
    await eventually(
      () => tenantIndexStub(env, who.tenantId).tokensToday(who.tenantId, Date.now()),
      (n) => n === 15,
      3_000,
    );
  });

  it("keeps a shard's pushed spending and reservations as the shard last listed them", async () => {
    const tenantId = freshTenant();
    await sharded(tenantId, 2, { max_tokens_per_day: 1000, max_tokens_per_day_per_subject: 500 });
    const index = tenantIndexStub(env, tenantId);
    const shard = shardKey({ generation: 1, shards: 2, k: 0 });
    const other = shardKey({ generation: 1, shards: 2, k: 1 });
    const day = utcDay(Date.now());
    const row = (created_by: string, input_tokens: number) => ({
      model: "mock",
      api_key_id: "",
      created_by,
      input_tokens,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    const push = (rows: ReturnType<typeof row>[], held: { session_id: string; tokens: number }[]) => ({
      day,
      rows,
      held,
      pairs: [{ created_by: "ann", api_key_id: "" }],
    });
    const run = (sessionId: string) => ({
      sessionId,
      maxConcurrent: 10,
      maxTokensPerDay: 1000,
      maxTokensPerDayPerSubject: 500,
      createdBy: "ann",
      apiKeyId: "",
      reserveTokens: 300,
      now: Date.now(),
    });
    // Shard 0 spent 100 of ann's; shard 1 asks: it sees them as everywhere else's.
    await index.shardSpend(tenantId, shard, push([row("ann", 100)], []));
    const seen = await index.shardSpend(tenantId, other, push([], []));
    expect(seen.figures).toMatchObject({ budgeted: true, tokens: 100, pairs: [{ subject_tokens: 100, key_tokens: 0 }] });
    // An older push never lowers a total.
    await index.shardSpend(tenantId, shard, push([row("ann", 60)], []));
    expect(await index.tokensToday(tenantId, Date.now())).toBe(100);
    // Runs of both shards hold ann's budget: 100 spent, 300 held by shard 0's run; shard 1's second run sees 400 + 300 of 500.
    expect((await index.shardSpend(tenantId, shard, push([], []), run("ses_a"))).admission).toEqual({ ok: true });
    const second = await index.shardSpend(tenantId, other, push([], []), run("ses_b"));
    expect(second.admission).toMatchObject({ ok: true });
    const third = await index.shardSpend(tenantId, other, push([], [{ session_id: "ses_b", tokens: 300 }]), run("ses_c"));
    expect(third.admission).toMatchObject({ ok: false, code: "budget_used", held: true, budget: "subject_tokens" });
    // Shard 0 lists its run as having 50 left, then no run at all: the index holds 50, then nothing for it.
    await index.shardSpend(tenantId, shard, push([], [{ session_id: "ses_a", tokens: 50 }]));
    const held = () =>
      runInDurableObject(index, (_instance, state) =>
        state.storage.sql
          .exec<{ session_id: string; tokens: number }>(`SELECT session_id, tokens FROM budget_reservations ORDER BY session_id`)
          .toArray(),
      );
    expect(await held()).toEqual([
      { session_id: "ses_a", tokens: 50 },
      { session_id: "ses_b", tokens: 300 },
    ]);
    await index.shardSpend(tenantId, shard, push([], []));
    expect(await held()).toEqual([{ session_id: "ses_b", tokens: 300 }]);
    // A shard the tenant does not have is refused; so is a push of another shape.
    await expectIndexRejects(
      tenantId,
      (i) => i.shardSpend(tenantId, shardKey({ generation: 9, shards: 2, k: 0 }), push([], [])),
      /not one of/,
    );
    await expectIndexRejects(tenantId, (i) => i.shardSpend(tenantId, shard, { ...push([], []), day: "yesterday" }), /YYYY-MM-DD/);
  });
});
