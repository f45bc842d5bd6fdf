import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionStub, tenantIndexStub } from "../../../src/objects";
import { storedEvents } from "../../support/event-rows";
import { call, callJson, readProblem } from "../../support/api";
import { mockModel, uniqueKey } from "../../support/mock-client";
import { freshTenant } from "../../support/tokens";
import { type Caller, caller, createSession, getJson, waitForStatus } from "../sessions/helpers";
import { admin, answer, GET_TIME, keyCaller, toolLoop } from "./helpers";

/** Each step bills 15 tokens. */
const STEP = { input_tokens: 10, output_tokens: 5 };

function patch(who: Caller, path: string, body: unknown): Promise<Response> {
  return callJson(path, "PATCH", body, who.headers);
}

/** Polls `read` until `ready` holds: the index hears of a change just after the session shows it. */
async function eventually<T>(read: () => Promise<T>, ready: (value: T) => boolean, timeoutMs = 8_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ready(value)) return value;
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("budgets that pause", () => {
  it("a session at its token budget waits holding no run slot, and a tenant admin's PATCH raises it to its end", async () => {
    const tenantId = freshTenant();
    await tenantIndexStub(env, tenantId).setLimitOverrides(tenantId, { max_concurrent_runs: 1 });
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const boss = await admin(tenantId);
    const model = mockModel(uniqueKey("pause"));
    await model.script(toolLoop("toolu_p1", STEP), toolLoop("toolu_p2", STEP), answer(STEP));
    const session = await createSession(alice, {
      input: "loop",
      model: model.key,
      tools: GET_TIME,
      limits: { max_tokens_per_session: 25 },
    });
    // 15 tokens after the first call, 30 after the second: the run waits before a third.
    const waiting = await waitForStatus(alice, session.id, ["waiting_budget", "done", "failed"]);
    expect(waiting).toMatchObject({
      status: "waiting_budget",
      stop_reason: null,
      usage: { steps: 2 },
      budget_wait: { budget: "session_tokens", resumes_at: null },
    });
    const listed = await eventually(
      () => getJson<{ data: { id: string }[] }>(boss, "/v1/sessions?status=waiting_budget"),
      (page) => page.data.length > 0,
    );
    expect(listed.data.map((s) => s.id)).toEqual([session.id]);

    // The tenant has one run slot, and the waiting session holds none: another session runs meanwhile.
    const other = mockModel(uniqueKey("other"));
    await other.script(answer(STEP));
    const second = await createSession(alice, { input: "hello", model: other.key });
    expect(await waitForStatus(alice, second.id, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });

    // Only a tenant admin raises it, and never past the tenant's limit.
    expect((await patch(alice, `/v1/sessions/${session.id}`, { limits: { max_tokens_per_session: 1000 } })).status).toBe(403);
    const over = await patch(boss, `/v1/sessions/${session.id}`, { limits: { max_tokens_per_session: 10_000_000 } });
    expect(over.status).toBe(400);
    expect((await readProblem(over)).errors?.[0]?.path).toBe("body.limits.max_tokens_per_session");
    // A raise that leaves the budget reached (30 used) does not wake the run: it waits on, with no second wait event.
    const waits = () =>
      runInDurableObject(sessionStub(env, tenantId, session.id), (_instance, state) =>
        storedEvents(state.storage.sql).filter((row) => row.type === "status" && row.data.includes('"waiting_budget"')),
      );
    expect(await waits()).toHaveLength(1);
    expect((await patch(boss, `/v1/sessions/${session.id}`, { limits: { max_tokens_per_session: 30 } })).status).toBe(200);
    expect(await getJson(alice, `/v1/sessions/${session.id}`)).toMatchObject({ status: "waiting_budget" });
    expect(await waits()).toHaveLength(1);
    // The tenant's run slots and daily budgets are not one session's to change.
    const tenantWide = await patch(boss, `/v1/sessions/${session.id}`, { limits: { max_concurrent_runs: 5 } });
    expect(tenantWide.status).toBe(400);
    expect((await readProblem(tenantWide)).errors?.[0]?.path).toBe("body.limits.max_concurrent_runs");
    const raised = await patch(boss, `/v1/sessions/${session.id}`, { limits: { max_tokens_per_session: 1000 } });
    expect(raised.status).toBe(200);
    expect(((await raised.json()) as { limits: { max_tokens_per_session: number } }).limits.max_tokens_per_session).toBe(1000);
    const done = await waitForStatus(alice, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn", usage: { steps: 3 }, budget_wait: null });
    expect(await model.requests()).toHaveLength(3);

    const audit = await eventually(
      () =>
        getJson<{ data: { action: string; target: { id: string }; details: unknown }[] }>(
          boss,
          "/v1/tenant/audit-log?action=session.limits_updated",
        ),
      (page) => page.data.length > 0,
    );
    expect(audit.data[0]).toMatchObject({ target: { id: session.id }, details: { limits: { max_tokens_per_session: 1000 } } });
  });

  it("a key's daily budget makes its session wait, a start past it is a 429, and raising the key's budget resumes the session", async () => {
    const tenantId = freshTenant();
    const boss = await admin(tenantId);
    const key = await keyCaller(boss, { max_tokens_per_day: 25 });
    const model = mockModel(uniqueKey("keyed"));
    await model.script(toolLoop("toolu_k1", STEP), toolLoop("toolu_k2", STEP), answer(STEP));
    const session = await createSession(key, { input: "loop", model: model.key, tools: GET_TIME });
    const midnight = new Date((Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000).toISOString();
    expect(await waitForStatus(key, session.id, ["waiting_budget", "done", "failed"])).toMatchObject({
      status: "waiting_budget",
      usage: { steps: 2 },
      budget_wait: { budget: "key_tokens", resumes_at: midnight },
    });
    const refused = await callJson("/v1/sessions", "POST", { input: "more", model: model.key }, key.headers);
    expect(refused.status).toBe(429);
    expect((await readProblem(refused)).detail).toMatch(/API key's daily token budget/);

    // The index lists the session under the key's budget once the report of the wait is in.
    await eventually(
      () => getJson<{ data: { id: string }[] }>(boss, "/v1/sessions?status=waiting_budget"),
      (page) => page.data.some((s) => s.id === session.id),
    );
    const res = await patch(boss, `/v1/api-keys/${key.keyId}`, { max_tokens_per_day: 1000 });
    expect(res.status).toBe(204);
    expect(await waitForStatus(key, session.id, ["done", "failed"])).toMatchObject({
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 3 },
    });
    expect((await patch(boss, "/v1/api-keys/key_000000000000000000000000", { max_tokens_per_day: 1 })).status).toBe(404);
    const keys = (await (await call("/v1/api-keys", { headers: boss.headers })).json()) as {
      data: { key_id: string; max_tokens_per_day: number | null }[];
    };
    expect(keys.data.find((k) => k.key_id === key.keyId)?.max_tokens_per_day).toBe(1000);
    // A revoked key's budget is not found.
    expect((await call(`/v1/api-keys/${key.keyId}`, { method: "DELETE", headers: boss.headers })).status).toBeLessThan(300);
    expect((await patch(boss, `/v1/api-keys/${key.keyId}`, { max_tokens_per_day: 5 })).status).toBe(404);
  });

  it("the tenant's daily cost budget raised by a limits change resumes the sessions waiting on it", async () => {
    const tenantId = freshTenant();
    const index = tenantIndexStub(env, tenantId);
    await index.setLimitOverrides(tenantId, { max_cost_usd_per_day: 0.03 });
    const alice = await caller(tenantId, ["sessions:read", "sessions:write"], "alice");
    const model = mockModel(uniqueKey("priced"));
    await model.script(toolLoop("toolu_c1", STEP), toolLoop("toolu_c2", STEP), answer(STEP));
    const session = await createSession(alice, { input: "loop", model: model.key, tools: GET_TIME });
    expect(await waitForStatus(alice, session.id, ["waiting_budget", "done", "failed"])).toMatchObject({ status: "waiting_budget" });
    await eventually(
      () => getJson<{ data: { id: string }[] }>(alice, "/v1/sessions?status=waiting_budget"),
      (page) => page.data.some((s) => s.id === session.id),
    );
    await index.setLimitOverrides(tenantId, { max_cost_usd_per_day: 1 });
    expect(await waitForStatus(alice, session.id, ["done", "failed"])).toMatchObject({ status: "done", usage: { steps: 3 } });
  });
});
