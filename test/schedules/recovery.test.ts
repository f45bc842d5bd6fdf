/**
 * The Scheduler after an outage or a crash, on storage as they leave it: slots missed while the
 * platform was down fire once, and a firing recorded but cut off before it was finished is
 * finished by the next wake, never repeated, whether or not its action had happened.
 */
import { abortAllDurableObjects, env, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Session } from "../../src/session-config/types";
import { schedulerStub } from "../../src/objects";
import { openGate, performAction } from "../../src/schedules/fire";
import { slotRequestKey, slotSessionId } from "../../src/schedules/slot-ids";
import * as store from "../../src/schedules/store";
import type { ScheduleAction } from "../../src/schedules/types";
import { mockModel, uniqueKey } from "../support/mock-client";
import { caller, type Caller, createSession, getJson, messagesOf, waitForStatus } from "../api/sessions/helpers";
import { createSchedule, type Schedule } from "../api/schedules/helpers";
import { finished, insideScheduler, storedFirings, until } from "./helpers";

/** Midnight on 1 January: no slot of it comes during a test. */
const YEARLY = "0 0 0 1 1 *";
const SLOT_2024 = Date.UTC(2024, 0, 1);
const SLOT_2026 = Date.UTC(2026, 0, 1);

async function sessionsOf(who: Caller): Promise<string[]> {
  return (await getJson<{ data: { id: string }[] }>(who, "/v1/sessions?limit=200")).data.map((s) => s.id);
}

/** The state a kill -9 leaves between "recorded" and "finished": a pending firing, no retry time, then a fresh object. */
async function crashAfterRecord(tenantId: string, scheduleId: string, slot: number, sessionId: string): Promise<void> {
  await insideScheduler(tenantId, (_instance, state) => {
    expect(store.insertFiring(state.storage.sql, scheduleId, slot, sessionId, Date.now())).toBe(true);
  });
  await abortAllDurableObjects();
}

/** Does the slot's action as the firing would, before the crash cuts off its record. */
async function actBeforeCrash(who: Caller, schedule: Schedule, slot: number): Promise<string> {
  const action = (
    schedule.session ? { session: schedule.session, message: null } : { session: null, message: schedule.message }
  ) as ScheduleAction;
  const gate = await openGate(
    env,
    who.tenantId,
    { subject: who.subject, scopes: ["sessions:read", "sessions:write"], via: "jwt", key_id: null, expires_at: null },
    Date.now(),
  );
  if (gate.kind !== "go") throw new Error(`gate: ${gate.kind}`);
  const sessionId = action.session ? await slotSessionId(schedule.id, slot) : action.message.session_id;
  expect(await performAction(gate.actor, action, { sessionId, requestKey: slotRequestKey(schedule.id, slot) })).toMatchObject({
    outcome: "started",
  });
  return sessionId;
}

describe("slots missed while the platform was down", () => {
  it("fire once, as the first of them, and the next slot is the first after now", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(who, { cron: YEARLY, session: { input: "catch up", model: model.key } });
    // The platform was down since before 1 January 2024: three slots passed.
    await insideScheduler(who.tenantId, (_instance, state) => {
      store.updateSchedule(state.storage.sql, schedule.id, { next_at: SLOT_2024 }, Date.now());
    });
    expect(await runDurableObjectAlarm(schedulerStub(env, who.tenantId))).toBe(true);

    const firings = await until("the firing finished", () => storedFirings(who.tenantId, schedule.id), finished);
    expect(firings).toHaveLength(1);
    expect(firings[0]).toMatchObject({ scheduled_at: new Date(SLOT_2024).toISOString(), outcome: "started" });
    const after = await getJson<Schedule>(who, `/v1/schedules/${schedule.id}`);
    expect(Date.parse(after.next_run_at!)).toBe(Date.UTC(new Date().getUTCFullYear() + 1, 0, 1));
    expect(await sessionsOf(who)).toEqual([firings[0]!.session_id]);

    // Nothing else is due: another alarm fires nothing.
    await insideScheduler(who.tenantId, (_instance, state) => state.storage.setAlarm(Date.now()));
    await runDurableObjectAlarm(schedulerStub(env, who.tenantId));
    expect(await storedFirings(who.tenantId, schedule.id)).toHaveLength(1);
  });
});

describe("a firing cut off between its record and its end", () => {
  it("is done on the next wake when its session was not created yet", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(who, { cron: YEARLY, session: { input: "after the crash", model: model.key } });
    const sessionId = await slotSessionId(schedule.id, SLOT_2026);
    await crashAfterRecord(who.tenantId, schedule.id, SLOT_2026, sessionId);

    const firings = await until("the firing finished", () => storedFirings(who.tenantId, schedule.id), finished);
    expect(firings).toEqual([expect.objectContaining({ session_id: sessionId, outcome: "started", error: null })]);
    expect(await sessionsOf(who)).toEqual([sessionId]);
    await waitForStatus(who, sessionId, ["done"]);
  });

  it("is recorded, not repeated, when its session was created before the crash", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(who, { cron: YEARLY, session: { input: "only once", model: model.key } });
    const sessionId = await actBeforeCrash(who, schedule, SLOT_2026);
    await crashAfterRecord(who.tenantId, schedule.id, SLOT_2026, sessionId);

    const firings = await until("the firing finished", () => storedFirings(who.tenantId, schedule.id), finished);
    expect(firings).toEqual([expect.objectContaining({ session_id: sessionId, outcome: "started", error_code: null })]);
    expect(await sessionsOf(who)).toEqual([sessionId]);
    await waitForStatus(who, sessionId, ["done"]);
    expect((await messagesOf(who, sessionId)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("is recorded with what the message did, not sent again, when the message was applied before the crash", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session: Session = await createSession(who, { model: model.key });
    const schedule = await createSchedule(who, {
      cron: YEARLY,
      message: { session_id: session.id, input: "only once", if_running: "enqueue" },
    });
    await actBeforeCrash(who, schedule, SLOT_2026);
    await crashAfterRecord(who.tenantId, schedule.id, SLOT_2026, session.id);

    const firings = await until("the firing finished", () => storedFirings(who.tenantId, schedule.id), finished);
    expect(firings).toEqual([expect.objectContaining({ session_id: session.id, outcome: "started" })]);
    const done = await waitForStatus(who, session.id, ["done"]);
    expect(done.queued_messages).toBe(0);
    expect((await messagesOf(who, session.id)).filter((m) => m.role === "user")).toHaveLength(1);
  });

  it("sends the message on the next wake when it was not applied before the crash", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session: Session = await createSession(who, { model: model.key });
    const schedule = await createSchedule(who, { cron: YEARLY, message: { session_id: session.id, input: "late but once" } });
    await crashAfterRecord(who.tenantId, schedule.id, SLOT_2026, session.id);

    const firings = await until("the firing finished", () => storedFirings(who.tenantId, schedule.id), finished);
    expect(firings).toEqual([expect.objectContaining({ outcome: "started" })]);
    await waitForStatus(who, session.id, ["done"]);
    expect((await messagesOf(who, session.id)).filter((m) => m.role === "user")).toHaveLength(1);
  });
});
