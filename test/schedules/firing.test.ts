/**
 * Schedules firing from the Scheduler's alarm in workerd, in real time: sessions created at each
 * slot as their creator, messages sent to a session, a paused schedule silent, and a firing the
 * route would refuse recorded with the route's problem.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import { slotSessionId } from "../../src/schedules/slot-ids";
import { call } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { caller, createSession, getJson, messagesOf, waitForStatus } from "../api/sessions/helpers";
import { createSchedule, firingsOf, patch, type Schedule, waitForFirings } from "../api/schedules/helpers";
import { finished, sleep } from "./helpers";
import type { Session } from "../../src/session-config/types";

const EVERY_SECOND = "* * * * * *";

describe("a session schedule", () => {
  it("creates a session at each slot, as its creator, within a second of the slot; a pause stops it", async () => {
    const who = await caller(undefined, undefined, "scheduler-owner");
    const model = mockModel(uniqueKey("model"));
    const schedule = await createSchedule(who, {
      cron: EVERY_SECOND,
      session: { input: "tick", model: model.key, metadata: { job: "tick" } },
    });
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.length >= 3 && finished(f));
    expect((await patch(who.headers, schedule.id, { paused: true })).status).toBe(200);

    const slots = firings.map((f) => Date.parse(f.scheduled_at)).reverse();
    expect(slots.every((slot) => slot % 1000 === 0)).toBe(true);
    expect(new Set(slots).size).toBe(slots.length);
    for (const firing of firings) {
      expect(firing.outcome).toBe("started");
      expect(firing.session_id).toBe(await slotSessionId(schedule.id, Date.parse(firing.scheduled_at)));
      // Drift: the firing is recorded shortly after its slot (generous here; the end-to-end test measures it).
      expect(Date.parse(firing.fired_at) - Date.parse(firing.scheduled_at)).toBeLessThan(1_000);
      const session = await waitForStatus(who, firing.session_id!, ["done"]);
      expect(session).toMatchObject({ created_by: "scheduler-owner", model: model.key, metadata: { job: "tick" } });
      expect((await messagesOf(who, session.id))[0]!.content).toEqual([{ type: "text", text: "tick" }]);
    }

    // Paused: a firing under way at the pause may still finish, then nothing more.
    await sleep(300);
    const atPause = (await firingsOf(who.headers, schedule.id)).length;
    await sleep(2_200);
    expect((await firingsOf(who.headers, schedule.id)).length).toBe(atPause);
    const paused = await getJson<Schedule>(who, `/v1/schedules/${schedule.id}`);
    expect(paused).toMatchObject({ status: "paused", next_run_at: null });
    expect(Date.parse(paused.last_fired_at!)).toBeGreaterThanOrEqual(Date.parse(firings[0]!.fired_at));

    // Resumed: it fires from the next slot after now; the slots passed while paused stay unfired.
    const lastBeforePause = Math.max(...(await firingsOf(who.headers, schedule.id)).map((f) => Date.parse(f.scheduled_at)));
    const resumedAt = Date.now();
    expect((await patch(who.headers, schedule.id, { paused: false })).status).toBe(200);
    const resumed = await waitForFirings(
      who.headers,
      schedule.id,
      (f) => f.some((firing) => Date.parse(firing.scheduled_at) > resumedAt) && finished(f),
    );
    await patch(who.headers, schedule.id, { paused: true });
    const slotsWhilePaused = resumed.filter((f) => Date.parse(f.scheduled_at) > lastBeforePause && Date.parse(f.scheduled_at) <= resumedAt);
    expect(slotsWhilePaused).toEqual([]);
    expect(resumed.find((f) => Date.parse(f.scheduled_at) > resumedAt)).toMatchObject({ outcome: "started" });
  }, 30_000);

  it("records a firing the create route would refuse, with the route's problem at the schedule's field", async () => {
    const who = await caller();
    const schedule = await createSchedule(who, { cron: EVERY_SECOND, session: { input: "x", model: "claude-haiku-4-5" } });
    await tenantIndexStub(env, who.tenantId).setAllowedModels(who.tenantId, ["claude-sonnet-*"]);
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.some((firing) => firing.outcome === "failed"));
    await patch(who.headers, schedule.id, { paused: true });
    const failed = firings.find((firing) => firing.outcome === "failed")!;
    expect(failed).toMatchObject({
      error_code: "validation_failed",
      error: expect.stringContaining('session.model: The model "claude-haiku-4-5" is not available'),
    });
    expect(failed.finished_at).not.toBeNull();
  });

  it("records a 429 when the tenant's runs are all going, as the create route would answer", async () => {
    const who = await caller();
    await tenantIndexStub(env, who.tenantId).setLimitOverrides(who.tenantId, { max_concurrent_runs: 1 });
    const model = mockModel(uniqueKey("slow"));
    // The first session's model call is held, so it keeps the tenant's one run slot.
    await model.script({ delay_ms: 2_500, reply: { content: [{ type: "text", text: "late" }] } });
    const schedule = await createSchedule(who, { cron: EVERY_SECOND, session: { input: "x", model: model.key } });
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.some((firing) => firing.outcome === "failed"));
    await patch(who.headers, schedule.id, { paused: true });
    expect(firings.find((firing) => firing.outcome === "failed")).toMatchObject({
      error_code: "rate_limited",
      session_id: expect.stringMatching(/^ses_/),
    });
    expect(firings.filter((firing) => firing.outcome === "started")).toHaveLength(1);
  });
});

describe("a message schedule", () => {
  it("adds its message to the session at each slot, queuing behind a run that is going", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    const schedule = await createSchedule(who, {
      cron: EVERY_SECOND,
      message: { session_id: session.id, input: "again", if_running: "enqueue" },
    });
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.length >= 2 && finished(f));
    await patch(who.headers, schedule.id, { paused: true });
    await sleep(300);
    const all = await firingsOf(who.headers, schedule.id);
    for (const firing of all) {
      expect(firing.session_id).toBe(session.id);
      expect(["started", "enqueued"]).toContain(firing.outcome);
    }
    expect(firings.length).toBeGreaterThanOrEqual(2);
    const settled = await waitForStatus(who, session.id, ["done"]);
    expect(settled.queued_messages).toBe(0);
    const inputs = (await messagesOf(who, session.id)).filter((m) => m.role === "user");
    expect(inputs).toHaveLength(all.length);
  });

  it("records 404 when the session was deleted, as the message route would answer", async () => {
    const who = await caller();
    const session: Session = await createSession(who);
    const schedule = await createSchedule(who, { cron: EVERY_SECOND, message: { session_id: session.id, input: "hello?" } });
    expect((await call(`/v1/sessions/${session.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);
    const firings = await waitForFirings(who.headers, schedule.id, (f) => f.some((firing) => firing.outcome === "failed"));
    await patch(who.headers, schedule.id, { paused: true });
    expect(firings.find((firing) => firing.outcome === "failed")).toMatchObject({ error_code: "not_found", error: "No such session." });
  });
});
