/**
 * The one alarm-sync rule (`alarmChange`), and the three objects that set alarms (the session object,
 * the tenant index, the scheduler) setting and deleting them only through it.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { schedulerStub, tenantIndexStub } from "../../src/objects";
import type { TenantIndex } from "../../src/tenants/tenant-index";
import { AlarmClock, alarmChange } from "../../src/storage/alarm-clock";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";
import { call } from "../support/api";
import { mockModel, uniqueKey } from "../support/mock-client";
import { caller } from "../api/sessions/helpers";
import { createSchedule, sessionBody } from "../api/schedules/helpers";

afterEach(() => vi.restoreAllMocks());

describe("alarmChange", () => {
  it.each([
    { current: null, target: null, now: 1_000, want: { kind: "keep" }, why: "nothing due, none set" },
    { current: 5_000, target: null, now: 1_000, want: { kind: "delete" }, why: "nothing due: the alarm set goes" },
    { current: null, target: 5_000, now: 1_000, want: { kind: "set", at: 5_000 }, why: "due later, none set" },
    { current: 3_000, target: 5_000, now: 1_000, want: { kind: "keep" }, why: "an earlier alarm still to come stays" },
    { current: 5_000, target: 5_000, now: 1_000, want: { kind: "keep" }, why: "the same time stays" },
    { current: 9_000, target: 5_000, now: 1_000, want: { kind: "set", at: 5_000 }, why: "a later alarm is brought forward" },
    { current: null, target: 1_000, now: 1_000, want: { kind: "set", at: 1_001 }, why: "due now: just after now" },
    { current: 500, target: 800, now: 1_000, want: { kind: "set", at: 1_001 }, why: "an alarm already due is set again" },
  ])("$why", ({ current, target, now, want }) => {
    expect(alarmChange(current, target, now)).toEqual(want);
  });
});

describe("every object's alarm", () => {
  /** Alarm writes seen on the storage of the objects watched, and whether each came from the rule. */
  const writes: { object: string; method: string; throughRule: boolean }[] = [];
  let inRule = 0;

  function countRuleCalls(): void {
    for (const name of ["sync", "wakeWithWrite"] as const) {
      const original = AlarmClock.prototype[name] as (this: AlarmClock, ...args: unknown[]) => Promise<void>;
      vi.spyOn(AlarmClock.prototype, name).mockImplementation(function (this: AlarmClock, ...args: unknown[]) {
        inRule++;
        let pending: Promise<void>;
        try {
          pending = original.apply(this, args);
        } catch (error) {
          inRule--;
          throw error;
        }
        return pending.finally(() => inRule--);
      } as never);
    }
  }

  /** `preset`: an alarm set before the watch, for an object that would otherwise find nothing to change. */
  async function watch(object: string, stub: DurableObjectStub, preset: number | null = null): Promise<void> {
    await runInDurableObject(stub, async (_instance, state) => {
      if (preset !== null) await state.storage.setAlarm(preset);
      const storage = state.storage as unknown as Record<"setAlarm" | "deleteAlarm", (...args: unknown[]) => Promise<void>>;
      for (const method of ["setAlarm", "deleteAlarm"] as const) {
        const original = storage[method].bind(state.storage);
        vi.spyOn(storage, method).mockImplementation(((...args: unknown[]) => {
          writes.push({ object, method, throughRule: inRule > 0 });
          return original(...args);
        }) as never);
      }
    });
  }

  it("is set and deleted only through the one rule, by the session object, the tenant index and the scheduler", async () => {
    writes.length = 0;
    countRuleCalls();
    const t = newTestSession();
    await watch("agent", t.stub);
    await watch("tenant index", tenantIndexStub(env, t.tenantId), Date.now() + 3_600_000);
    await createAndStart(t, "go", { tools: [{ type: "builtin", name: "get_time" }] });
    await t.model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_1", name: "get_time", input: {} }] } },
      { reply: { content: [{ type: "text", text: "done" }] } },
    );
    await waitForStatus(t, ["done"]);
    // The index's alarm runs its pump and deliveries, then syncs the alarm set an hour ahead.
    await runInDurableObject(tenantIndexStub(env, t.tenantId), (instance: TenantIndex) => instance.alarm());

    const who = await caller(t.tenantId);
    await watch("scheduler", schedulerStub(env, who.tenantId));
    const schedule = await createSchedule(who, { cron: "0 0 0 1 1 *", session: sessionBody(mockModel(uniqueKey("model")).key) });
    expect((await call(`/v1/schedules/${schedule.id}`, { method: "DELETE", headers: who.headers })).status).toBe(204);

    for (const object of ["agent", "tenant index", "scheduler"])
      expect(writes.filter((w) => w.object === object).length, object).toBeGreaterThan(0);
    expect(writes.filter((w) => !w.throughRule)).toEqual([]);
  });
});
