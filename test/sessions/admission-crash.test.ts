/**
 * A create's admission (control/admission.ts) when the session object dies between its write and
 * the index's answer: what it wrote lets its next wake settle it, so no run goes on without a
 * slot and no row is listed without a session. The crash: a second engine over the object's
 * storage whose ask never answers, then every object aborted; the object's own alarm wakes it.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BUILTIN_DEFAULT_LIMITS } from "../../src/limits";
import { tenantIndexStub } from "../../src/objects";
import * as control from "../../src/sessions/object/control";
import { CREATE_ADMISSION_CRASH_WAKE_MS, CREATE_ADMISSION_RETRY_MS } from "../../src/limits";
import { SessionEngine } from "../../src/sessions/object/engine/engine";
import { reconcile } from "../../src/sessions/object/engine/reconcile";
import type { AdmissionLimits } from "../../src/tenants/types";
import { newTestSession, sessionInit, type TestSession } from "../support/agent-session";

const LIMITS: AdmissionLimits = {
  maxConcurrent: 1,
  maxTokensPerDay: null,
  maxCostUsdPerDay: null,
  maxTokensPerDayPerSubject: null,
};

/** The create as the object makes it, up to its ask of the index, which never answers: a crash there. */
async function crashBeforeTheAnswer(t: TestSession): Promise<void> {
  await runInDurableObject(t.stub, async (_instance, state) => {
    const engine = new SessionEngine(state, env);
    Object.assign(engine.reporter, { admit: () => new Promise(() => {}) });
    const before = Date.now();
    void control.create(engine, sessionInit(t), "hi", {}, LIMITS);
    for (let i = 0; i < 100 && state.storage.kv.get("admission_owed") === undefined; i++) await scheduler.wait(10);
    // What the crash leaves: the session running with its admission owed, and the wake that settles it.
    expect(engine.store.run().status).toBe("running");
    expect(state.storage.kv.get("admission_owed")).toEqual(LIMITS);
    expect(await state.storage.getAlarm()).toBeGreaterThanOrEqual(before + CREATE_ADMISSION_CRASH_WAKE_MS);
  });
  // The crash: the object's next event finds a fresh instance over what storage kept.
  await abortAllDurableObjects();
  // Nothing was listed: the index never heard of the session.
  expect(await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId)).toBeNull();
}

describe("a create's admission after a crash between the write and the answer", () => {
  it("is asked again at the next wake: admitted, the session is listed and its run goes on", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [{ type: "text", text: "hi" }] } });
    await crashBeforeTheAnswer(t);
    expect(await runDurableObjectAlarm(t.stub)).toBe(true);
    const row = await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId);
    expect(row).not.toBeNull();
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect(state.storage.kv.get("admission_owed")).toBeUndefined();
    });
    expect(await t.stub.get()).toMatchObject({ ok: true, value: { status: expect.stringMatching(/^(running|done)$/) } });
  });

  it("refused at the next wake (every slot taken), the session erases itself and nothing is listed", async () => {
    const t = newTestSession();
    // Another run holds the tenant's one slot.
    const other = await tenantIndexStub(env, t.tenantId).admitRun(t.tenantId, { ...LIMITS, sessionId: "ses_other", now: Date.now() });
    expect(other.ok).toBe(true);
    await crashBeforeTheAnswer(t);
    await runDurableObjectAlarm(t.stub);
    expect(await t.stub.get()).toEqual({ ok: false, reason: "session_not_found" });
    expect(await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId)).toBeNull();
    expect(BUILTIN_DEFAULT_LIMITS.max_concurrent_runs).toBeGreaterThan(LIMITS.maxConcurrent);
  });

  it("makes no report of its own before the admission is answered, so a control in between cannot list it unadmitted", async () => {
    const t = newTestSession();
    const other = await tenantIndexStub(env, t.tenantId).admitRun(t.tenantId, { ...LIMITS, sessionId: "ses_other", now: Date.now() });
    expect(other.ok).toBe(true);
    await crashBeforeTheAnswer(t);
    // A read and a second create of the same id reach the object before its wake: each control reconciles.
    expect(await t.stub.get()).toMatchObject({ ok: true });
    await t.stub.create(sessionInit(t), "again", {}, LIMITS);
    expect(await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId)).toBeNull();
    // The wake still asks with the limits: the one slot is taken, so the session goes.
    await runDurableObjectAlarm(t.stub);
    expect(await t.stub.get()).toEqual({ ok: false, reason: "session_not_found" });
    expect(await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId)).toBeNull();
  });

  it("stays owed when the index's answer fails: no unit runs, and the wake asks again later", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [{ type: "text", text: "hi" }] } });
    await crashBeforeTheAnswer(t);
    await runInDurableObject(t.stub, async (_instance, state) => {
      const engine = new SessionEngine(state, env);
      Object.assign(engine.reporter, { admit: () => Promise.reject(new Error("the index did not answer")) });
      const before = Date.now();
      await control.wake(engine);
      await reconcile(engine);
      expect(state.storage.kv.get("admission_owed")).toEqual(LIMITS);
      expect(engine.store.run().usage.steps).toBe(0);
      expect(await state.storage.getAlarm()).toBeGreaterThanOrEqual(before + CREATE_ADMISSION_RETRY_MS - 1_000);
    });
    expect(await tenantIndexStub(env, t.tenantId).getSessionSummary(t.tenantId, t.sessionId)).toBeNull();
  });
});
