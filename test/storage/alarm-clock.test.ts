import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agents/agent";
import { safeAlarmTime } from "../../src/storage/alarm-clock";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

afterEach(() => vi.restoreAllMocks());

describe("safeAlarmTime", () => {
  it.each([
    { target: 1_000, started: null, want: 1_000, why: "no handler runs: any time" },
    { target: 1_000, started: 1_000, want: 1_001, why: "the handler's own start: could be its scheduled time" },
    { target: 900, started: 1_000, want: 1_001, why: "before the start: could be its scheduled time too" },
    { target: 1_001, started: 1_000, want: 1_001, why: "after the start: kept" },
    { target: 5_000, started: 1_000, want: 5_000, why: "later: kept" },
  ])("$why", ({ target, started, want }) => {
    expect(safeAlarmTime(target, started)).toBe(want);
  });
});

describe("an Agent's alarm", () => {
  it("is never set, while a wake runs, at or before the moment that wake started", async () => {
    // `Date.now()` stands still between I/O, so a unit with no I/O (a get_time call) that asks
    // for "now" would ask for its own start, which may be the running alarm's time: an alarm
    // the runtime can keep in storage and never fire (see src/storage/alarm-clock.ts).
    const t = newTestSession();
    const steps = 5;
    const toolUse = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });
    await t.model.script(...Array.from({ length: steps - 1 }, (_, i) => ({ reply: { content: [toolUse(`toolu_${i}`)] } })), { reply: { content: [{ type: "text", text: "done" }] } });
    const sets: { at: number; wakeStartedAt: number | null }[] = [];
    // The clock of a wake stands still from its start, as the runtime's does between I/O (this
    // test runtime lets it move on its own, which would hide the case).
    let wakeStartedAt: number | null = null;
    const realNow = Date.now.bind(Date);
    vi.spyOn(Date, "now").mockImplementation(() => wakeStartedAt ?? realNow());
    const alarm = Agent.prototype.alarm;
    vi.spyOn(Agent.prototype, "alarm").mockImplementation(async function (this: Agent, ...args) {
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
