/**
 * The session object's outbox: a notification stays owed, in the session's own storage, until the tenant
 * index has it. What a crash leaves owed is handed over when the object wakes; a hand-off the
 * index refuses is kept and tried again from the alarm with backoff; an erase that cannot hand
 * over what is owed keeps the session and answers 503, and one the index refuses for good drops
 * only the notifications refused on their own.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { OutboxEntry, OutboxRetry } from "../../src/sessions/object/store/store";
import { newEventId } from "../../src/notifications/ids";
import type { NotificationType } from "../../src/notifications/types";
import { HANDOFF_RETRY_MS } from "../../src/notifications/schedule";
import { sessionStub, tenantIndexName, tenantIndexStub } from "../../src/objects";
import { sessionProblem } from "../../src/sessions/client";
import type { SessionFailure } from "../../src/session-config/types";
import { TenantIndex } from "../../src/tenants/tenant-index";
import { createSession } from "../api/sessions/helpers";
import { call } from "../support/api";
import {
  alarmAt,
  createAndStart,
  getSession,
  newTestSession,
  type TestSession,
  waitForStatus as waitForSessionStatus,
} from "../support/agent-session";
import { mockHook, mockModel, uniqueKey } from "../support/mock-client";
import { eventually, registerEndpoint, tenant, typesFor } from "./helpers";

/** Writes an owed notification straight into the outbox, as a status change leaves it when the process dies before the hand-off. */
async function owe(t: Pick<TestSession, "stub">, entry: Partial<OutboxEntry> & { session: OutboxEntry["session"] }): Promise<string> {
  const id = entry.id ?? newEventId();
  await runInDurableObject(t.stub, (_instance, state) => {
    const owed = state.storage.kv.get<OutboxEntry[]>("outbox") ?? [];
    state.storage.kv.put("outbox", [
      ...owed,
      { id, type: entry.type ?? "session.done", created_at: entry.created_at ?? entry.session.updated_at, session: entry.session },
    ]);
  });
  // The object keeps what its outbox holds once read: one written by hand is seen by the next instance.
  await abortAllDurableObjects();
  return id;
}

async function outbox(t: Pick<TestSession, "stub">): Promise<{ rows: string[]; retry: OutboxRetry | undefined }> {
  return runInDurableObject(t.stub, (_instance, state) => ({
    rows: (state.storage.kv.get<OutboxEntry[]>("outbox") ?? []).map((entry) => entry.id),
    retry: state.storage.kv.get<OutboxRetry>("outbox_retry"),
  }));
}

async function endpointFor(
  t: TestSession,
  eventTypes: NotificationType[] = ["session.done", "session.failed"],
): Promise<ReturnType<typeof mockHook>> {
  const hook = mockHook(uniqueKey("receiver"));
  const created = await tenantIndexStub(env, t.tenantId).createWebhookEndpoint(t.tenantId, {
    url: hook.url,
    event_types: eventTypes,
    description: null,
    created_by: "admin",
  });
  expect(created.ok).toBe(true);
  return hook;
}

describe("the outbox", () => {
  it("is empty once the index has the notification, and nothing is left to wake for", async () => {
    const t = newTestSession();
    const hook = await endpointFor(t);
    await createAndStart(t, "hi");
    await waitForSessionStatus(t, ["done"]);
    await hook.waitForRequests(1);
    await eventually(async () => ((await outbox(t)).rows.length === 0 ? true : undefined), "the outbox to empty");
    await eventually(async () => ((await alarmAt(t)) === null ? true : undefined), "the alarm to go");
    expect((await outbox(t)).retry).toBeUndefined();
  });

  it("hands over, after a restart, a notification a crash left owed", async () => {
    const t = newTestSession();
    const hook = await endpointFor(t);
    const done = await createAndStart(t, "hi");
    await waitForSessionStatus(t, ["done"]);
    await hook.waitForRequests(1);
    const session = { ...((await hook.requests())[0]!.body as { session: OutboxEntry["session"] }) }.session;
    const owedId = await owe(t, { type: "session.failed", session: { ...session, status: "failed" } });
    await abortAllDurableObjects(); // the process dies before the hand-off
    await getSession(t); // any wake; its alarm is set for what is owed
    const requests = await hook.waitForRequests(2);
    expect(requests.map((r) => (r.body as { id: string }).id)).toContain(owedId);
    expect(done.id).toBe(t.sessionId);
    await eventually(async () => ((await outbox(t)).rows.length === 0 ? true : undefined), "the outbox to empty");
  });

  it("keeps a notification the index refuses, and tries again from the alarm with backoff", async () => {
    const t = newTestSession();
    const hook = await endpointFor(t);
    await createAndStart(t, "hi");
    await waitForSessionStatus(t, ["done"]);
    const [first] = await hook.waitForRequests(1);
    const session = (first!.body as { session: OutboxEntry["session"] }).session;
    // An id the index refuses stands in for an index that cannot take it yet.
    await owe(t, { id: "evt_refused", type: "session.failed", session });
    await runInDurableObject(t.stub, (_instance, state) => state.storage.setAlarm(Date.now()));
    const failed = await eventually(async () => {
      const state = await outbox(t);
      return state.retry ? state : undefined;
    }, "the failed hand-off to be recorded");
    expect(failed.rows).toEqual(["evt_refused"]);
    expect(failed.retry!.failures).toBeGreaterThanOrEqual(1);
    // The alarm follows the record of the failure: set for the retry, not before.
    await eventually(async () => ((await alarmAt(t)) === failed.retry!.retry_at ? true : undefined), "the alarm to be set for the retry");
    expect(failed.retry!.retry_at - Date.now()).toBeLessThanOrEqual(HANDOFF_RETRY_MS * 2 ** (failed.retry!.failures - 1));

    // The index can take it now: the next try, at the alarm, hands it over.
    const fixed = newEventId();
    await runInDurableObject(t.stub, async (_instance, state) => {
      const owed = state.storage.kv.get<OutboxEntry[]>("outbox")!;
      state.storage.kv.put(
        "outbox",
        owed.map((entry) => (entry.id === "evt_refused" ? { ...entry, id: fixed } : entry)),
      );
      state.storage.kv.put("outbox_retry", { failures: 1, retry_at: Date.now() });
      await state.storage.setAlarm(Date.now() + 100);
    });
    await abortAllDurableObjects(); // a new instance reads the rewritten outbox; the alarm stays set
    const requests = await hook.waitForRequests(2);
    expect((requests[1]!.body as { id: string }).id).toBe(fixed);
    await eventually(async () => {
      const state = await outbox(t);
      return state.rows.length === 0 && state.retry === undefined ? true : undefined;
    }, "the outbox and its backoff to clear");
  });
});

describe("erasing a session that owes notifications", () => {
  it("keeps the session, cancelled, while its tenant index cannot be reached, and erases it once it can", async () => {
    const t = newTestSession();
    const hook = await endpointFor(t, ["session.cancelled"]);
    // Break the index: bound to another tenant, it refuses every call for this one, as an unreachable one would.
    // A fresh stub each time: one that saw its object abort stays broken.
    const index = () => env.TENANT_INDEX.get(env.TENANT_INDEX.idFromName(tenantIndexName(t.tenantId)));
    await runInDurableObject(index(), (_instance, state) => void state.storage.kv.put("tenant_id", "someone-else"));
    await abortAllDurableObjects(); // the index reads its binding again when it wakes
    await t.model.script({ hang: true });
    await createAndStart(t, "run");
    await t.model.waitForRequests(1);

    const refused = await t.stub.erase();
    expect(refused).toEqual({ ok: false, reason: "unavailable", detail: expect.any(String) });
    expect((await getSession(t)).status).toBe("cancelled");
    expect((await outbox(t)).rows).toHaveLength(1);
    const problem = sessionProblem(refused as SessionFailure);
    expect([problem.status, problem.code, problem.retryAfterSeconds]).toEqual([503, "service_unavailable", 5]);

    await runInDurableObject(index(), (_instance, state) => void state.storage.kv.put("tenant_id", t.tenantId));
    await abortAllDurableObjects();
    expect(await t.stub.erase()).toEqual({ ok: true, value: null });
    const [request] = await hook.waitForRequests(1);
    expect(request!.body).toMatchObject({ type: "session.cancelled", session: { id: t.sessionId, status: "cancelled" } });
  }, 20_000);

  it("is not kept from erasing by a notification the index refuses for good, and the others still go", async () => {
    const t = await tenant();
    const hook = mockHook(uniqueKey("receiver"));
    await registerEndpoint(t.admin, hook.url, ["session.cancelled"]);
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true, repeat: 2 }); // the owed row's restart asks again
    const session = await createSession(t.writer, { input: "run", model: model.key });
    await model.waitForRequests(1);
    const stub = {
      get stub() {
        return sessionStub(env, t.tenantId, session.id);
      },
    };
    await owe(stub, { id: "evt_refused", created_at: new Date().toISOString(), session: { id: session.id } as OutboxEntry["session"] });
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: t.writer.headers })).status).toBe(204);
    expect((await call(`/v1/sessions/${session.id}`, { headers: t.writer.headers })).status).toBe(404);
    expect(typesFor(await hook.waitForRequests(1), session.id)).toEqual(["session.cancelled"]);
  });
});

describe("the notifications of a status change", () => {
  it("ride along with its report: a run that ends costs the index no extra call", async () => {
    const t = newTestSession();
    const hook = await endpointFor(t);
    const report = vi.spyOn(TenantIndex.prototype, "reportSession");
    const accept = vi.spyOn(TenantIndex.prototype, "acceptNotifications");
    try {
      await createAndStart(t, "hi");
      await waitForSessionStatus(t, ["done"]);
      await hook.waitForRequests(1);
      expect(accept).not.toHaveBeenCalled();
      const carried = report.mock.calls
        .filter((args) => args[2] !== undefined)
        .map((args) => (args[2] as { notifications: { type: string }[] }).notifications.map((n) => n.type));
      expect(carried).toEqual([["session.done"]]);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
