import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionObject } from "../../src/sessions/object/session-object";
import { AlarmClock, keepsAlarm, safeAlarmTime } from "../../src/storage/alarm-clock";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

afterEach(() => vi.restoreAllMocks());

describe("safeAlarmTime", () => {
  it.each([
    { target: 5_000, now: 1_000, want: 5_000, why: "a time to come: kept" },
    { target: 1_001, now: 1_000, want: 1_001, why: "a millisecond from now: kept" },
    { target: 1_000, now: 1_000, want: 1_001, why: "now: could be the running alarm's own time" },
    { target: 900, now: 1_000, want: 1_001, why: "past: could be the running alarm's own time too" },
  ])("$why", ({ target, now, want }) => {
    expect(safeAlarmTime(target, now)).toBe(want);
  });
});

describe("keepsAlarm", () => {
  it.each([
    { current: null, wanted: 2_000, now: 1_000, keeps: false, why: "none set" },
    { current: 1_500, wanted: 2_000, now: 1_000, keeps: true, why: "an earlier one still to come" },
    { current: 2_000, wanted: 2_000, now: 1_000, keeps: true, why: "the same time still to come" },
    { current: 3_000, wanted: 2_000, now: 1_000, keeps: false, why: "a later one" },
    { current: 1_000, wanted: 1_001, now: 1_000, keeps: false, why: "one due now: it may be the running one, or kept without firing" },
    { current: 400, wanted: 1_001, now: 1_000, keeps: false, why: "one overdue" },
  ])("$why", ({ current, wanted, now, keeps }) => {
    expect(keepsAlarm(current, wanted, now)).toBe(keeps);
  });
});

describe("AlarmClock.sync", () => {
  function fakeStorage(alarm: number | null) {
    const state = { alarm, sets: [] as number[] };
    const storage = {
      getAlarm: async () => state.alarm,
      setAlarm: async (time: number | Date) => {
        state.alarm = Number(time);
        state.sets.push(Number(time));
      },
    } as unknown as DurableObjectStorage;
    return { state, clock: new AlarmClock(storage) };
  }

  it("sets a due time just after now, keeps an earlier alarm to come, and replaces one already due", async () => {
    const now = Date.now();
    const due = fakeStorage(null);
    await due.clock.sync(now);
    expect(due.state.sets).toHaveLength(1);
    expect(due.state.sets[0]!).toBeGreaterThan(now);

    const earlier = fakeStorage(now + 60_000);
    await earlier.clock.sync(now + 120_000);
    expect(earlier.state.sets).toEqual([]);

    const stuck = fakeStorage(now - 5_000);
    await stuck.clock.sync(now + 120_000);
    expect(stuck.state.sets).toEqual([now + 120_000]);
  });
});

describe("a session object's alarm", () => {
  it("is never set, while a wake runs, at or before the moment that wake started", async () => {
    // `Date.now()` stands still between I/O, so a unit with no I/O (a get_time call) that asks
    // for "now" would ask for its own start, which may be the running alarm's time: an alarm
    // the runtime can keep in storage and never fire (see src/storage/alarm-clock.ts).
    const t = newTestSession();
    const steps = 5;
    const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });
    await t.model.script(...Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`)] } })), {
      reply: { content: [{ type: "text", text: "done" }] },
    });
    const sets: { at: number; wakeStartedAt: number | null }[] = [];
    // The clock of a wake stands still from its start, as the runtime's does between I/O (this
    // test runtime lets it move on its own, which would hide the case).
    let wakeStartedAt: number | null = null;
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => wakeStartedAt ?? realNow());
    const alarm = SessionObject.prototype.alarm;
    vi.spyOn(SessionObject.prototype, "alarm").mockImplementation(async function (this: SessionObject, ...args) {
      wakeStartedAt = realNow();
      try {
        return await alarm.apply(this, args);
      } finally {
        wakeStartedAt = null;
      }
    });
    await runInDurableObject(t.stub, (_instance, state) => {
      const setAlarm = state.storage.setAlarm.bind(state.storage);
      vi.spyOn(state.storage, "setAlarm").mockImplementation((time, options) => {
        sets.push({ at: Number(time), wakeStartedAt });
        return setAlarm(time, options);
      });
    });
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }], limits: { max_steps_per_run: steps } });
    const done = await waitForStatus(t, ["done"]);
    expect(done.usage.steps).toBe(steps);

    const duringWakes = sets.filter((s) => s.wakeStartedAt !== null);
    // Every model and tool unit set the next one's alarm from inside its wake.
    expect(duringWakes.length).toBeGreaterThanOrEqual(2 * (steps - 1));
    for (const set of duringWakes) expect(set.at).toBeGreaterThan(set.wakeStartedAt!);
  });
});
