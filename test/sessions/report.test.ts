import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexName, tenantIndexStub } from "../../src/objects";
import { alarmAt, createAndStart, newTestSession, runState, sessionInit, waitForStatus } from "../support/agent-session";

const text = (t: string) => ({ type: "text", text: t });

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
