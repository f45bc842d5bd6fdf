import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { TenantIndex } from "../../src/tenants/tenant-index";
import { tenantIndexName, tenantIndexStub } from "../../src/objects";
import { SessionEngine } from "../../src/sessions/object/engine/engine";
import { UNBUDGETED_USAGE_REPORT_INTERVAL_MS, USAGE_REPORT_INTERVAL_MS } from "../../src/sessions/object/report/report-policy";
import { alarmAt, createAndStart, newTestSession, runState, sessionInit, type TestSession, waitForStatus } from "../support/agent-session";

const text = (t: string) => ({ type: "text", text: t });
const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });

describe("reports to the tenant index", () => {
  it("tells the index each status, ending with the final one and the usage", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [text("hi")], usage: { input_tokens: 11, output_tokens: 4 } } });
    await createAndStart(t, "hello");
    await waitForStatus(t, ["done"]);
    const summary = await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId);
    expect(summary).toMatchObject({
      id: t.sessionId,
      created_by: "user-1",
      status: "done",
      stop_reason: "end_turn",
      usage: { steps: 1, input_tokens: 11, output_tokens: 4 },
    });
    const run = await runState(t);
    expect(run.reported_revision).toBe(run.revision);
  });

  it("retries a failed report from the alarm until the index has the final status", async () => {
    const t = newTestSession();
    // Break the index: it is bound to another tenant, so it refuses this tenant's reports.
    const index = env.TENANT_INDEX.get(env.TENANT_INDEX.idFromName(tenantIndexName(t.tenantId)));
    await index.admitRequest("someone-else", { bucket: "k", now: Date.now() });
    await t.model.script({ reply: { content: [text("hi")] } });
    await createAndStart(t, "hello");
    await waitForStatus(t, ["done"]);
    const owed = await runState(t);
    expect(owed.reported_revision).toBeLessThan(owed.revision);
    expect(await alarmAt(t)).not.toBeNull();

    // Mend the index, then let the retry run now instead of after its backoff.
    await runInDurableObject(index, (_instance, state) => void state.storage.kv.put("tenant_id", t.tenantId));
    await abortAllDurableObjects();
    await runInDurableObject(t.stub, async (_instance, state) => state.storage.setAlarm(Date.now()));
    const deadline = Date.now() + 5000;
    let summary = null;
    while (Date.now() < deadline) {
      summary = await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId);
      if (summary?.status === "done") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(summary).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const settled = await runState(t);
    expect(settled.reported_revision).toBe(settled.revision);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await alarmAt(t)).toBeNull();
  });
});

/** A run whose first step spent tokens and whose second hangs: its usage change is owed, not yet reported. */
async function firstStepSpent(t: TestSession, overrides: Parameters<typeof sessionInit>[1] = {}): Promise<void> {
  await t.model.script(
    { reply: { content: [text("let me look"), toolUse("toolu_1")], usage: { input_tokens: 30, output_tokens: 12 } } },
    { hang: true },
  );
  await createAndStart(t, "hello", overrides);
  const deadline = Date.now() + 10_000;
  while ((await runState(t)).usage.steps < 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const owed = await runState(t);
  expect(owed.usage.steps).toBe(1);
  expect(owed.reported_revision).toBeLessThan(owed.revision);
}

describe("the report interval, as a running session settles what is due", () => {
  it("sends no report for usage alone 30 s after the last one when no daily budget counts it", async () => {
    const t = newTestSession();
    await firstStepSpent(t);
    const reports = vi.spyOn(TenantIndex.prototype, "reportSession");
    try {
      // The last report moved 30 s back (past the 20 s interval), then the session settles what is due.
      await runInDurableObject(t.stub, async (_instance, state) => {
        const engine = new SessionEngine(state, env);
        engine.store.putRun({ ...engine.store.run(), last_report_at: Date.now() - 30_000 });
        await engine.reconcile();
      });
      expect(reports.mock.calls.filter(([tenant]) => tenant === t.tenantId)).toHaveLength(0);
      const run = await runState(t);
      expect(run.reported_revision).toBeLessThan(run.revision);
    } finally {
      reports.mockRestore();
    }
    await t.stub.cancel();
  });
});

describe("erasing a running session", () => {
  it("reports the usage it owes before its storage goes, so the tenant's count keeps it", async () => {
    const t = newTestSession();
    // No daily budget: the first step's usage alone would wait minutes for a report.
    await firstStepSpent(t);
    const before = await tenantIndexStub(env, t.tenantId).tokensToday(t.tenantId, Date.now());
    expect(await t.stub.erase()).toEqual({ ok: true, value: null });
    const after = await tenantIndexStub(env, t.tenantId).tokensToday(t.tenantId, Date.now());
    expect(after - before).toBe(42);
  });
});

describe("a suspended tenant", () => {
  it("cancels a run that starts after its tenant was suspended, at its first report", async () => {
    const t = newTestSession();
    await tenantIndexStub(env, t.tenantId).suspend(t.tenantId);
    await t.model.script({ hang: true });
    const created = await t.stub.create(sessionInit(t), "hello");
    expect(created).toMatchObject({ ok: true, value: { status: "cancelled", stop_reason: "cancelled" } });
    const summary = await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId);
    expect(summary).toMatchObject({ status: "cancelled" });
    expect(await alarmAt(t)).toBeNull();
  });
});

describe("how long usage alone waits while a run goes", () => {
  /** The wait before and after the run's first report of a fresh instance (the answer tells of the key's budget). */
  async function waits(t: TestSession, overrides: Parameters<typeof sessionInit>[1]): Promise<[number, number]> {
    await t.model.script({ hang: true });
    await createAndStart(t, "hello", overrides);
    try {
      return await runInDurableObject(t.stub, async (_instance, state) => {
        const engine = new SessionEngine(state, env);
        const before = engine.reporter.usageReportMs();
        await engine.reporter.send();
        return [before, engine.reporter.usageReportMs()];
      });
    } finally {
      await t.stub.cancel();
    }
  }

  it("is 5 minutes when no daily budget can count the session's spending", async () => {
    expect(await waits(newTestSession(), {})).toEqual([UNBUDGETED_USAGE_REPORT_INTERVAL_MS, UNBUDGETED_USAGE_REPORT_INTERVAL_MS]);
  });

  it("is 20 s under a tenant's daily budget", async () => {
    const budgeted = { limits: { max_tokens_per_day: 1_000_000 } };
    expect(await waits(newTestSession(), budgeted)).toEqual([USAGE_REPORT_INTERVAL_MS, USAGE_REPORT_INTERVAL_MS]);
  });

  it("is 20 s with an API key until the index says the key has no budget, and stays 20 s for a key with one", async () => {
    expect(await waits(newTestSession(), { api_key_id: "key_free" })).toEqual([
      USAGE_REPORT_INTERVAL_MS,
      UNBUDGETED_USAGE_REPORT_INTERVAL_MS,
    ]);
    const t = newTestSession();
    await tenantIndexStub(env, t.tenantId).createApiKey(t.tenantId, {
      key_id: "key_capped",
      tenant_id: t.tenantId,
      name: "capped",
      scopes: [],
      hash: "0".repeat(64),
      created_by: "user-1",
      created_at: new Date().toISOString(),
      expires_at: null,
      revoked_at: null,
      last_used_at: null,
      max_tokens_per_day: 1_000_000,
    });
    expect(await waits(t, { api_key_id: "key_capped" })).toEqual([USAGE_REPORT_INTERVAL_MS, USAGE_REPORT_INTERVAL_MS]);
  });
});
