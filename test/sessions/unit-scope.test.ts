/**
 * A unit writes only through its scope: a step's scope has no write outside `commit` (checked
 * by the type checker below), and a commit, a stream of text or a flush from a unit made stale
 * by a pause writes and sends nothing: the commit throws, so nothing after it in the step runs.
 * A stale unit's step row leaves the run's state alone.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionEngine } from "../../src/sessions/object/engine/engine";
import { StaleUnit, type StepScope, UnitScope } from "../../src/sessions/object/engine/unit-scope";
import { runUnit } from "../../src/sessions/object/loop/units";
import { newTestSession, sessionInit } from "../support/agent-session";

afterEach(() => vi.restoreAllMocks());

/** Never called: it fails the type check if a step's scope ever hands out a write. */
export function aStepCannotWriteOutsideCommit(scope: StepScope): void {
  // @ts-expect-error the store a step reads has no writes
  scope.store.putRun;
  // @ts-expect-error the store a step reads has no writes
  scope.store.setToolCallStatus;
  // @ts-expect-error the store a step reads has no writes
  scope.store.countRestart;
  // @ts-expect-error run-state changes are made inside commit only
  scope.updateRun;
  // @ts-expect-error the engine itself is not handed out
  scope.host;
  // @ts-expect-error nor is the generation check, which is commit's alone
  scope.current;
}

/** An idle session with a run started on a second engine over its storage, and no alarm to interfere. */
async function withRunningEngine(fn: (engine: SessionEngine) => Promise<void>): Promise<void> {
  const t = newTestSession();
  await t.stub.create(sessionInit(t), null);
  await runInDurableObject(t.stub, async (_instance, state) => {
    const engine = new SessionEngine(state, env);
    engine.startRun([{ type: "text", text: "go" }], {});
    await fn(engine);
  });
}

/** A pause as the control makes it: the generation moves on. */
function pause(engine: SessionEngine): void {
  engine.updateRun({ status: "paused", generation: engine.store.run().generation + 1 });
}

describe("a unit's scope", () => {
  it("commits while the unit is current, and writes nothing once a pause made it stale", async () => {
    await withRunningEngine(async (engine) => {
      const scope = new UnitScope(engine, engine.store.run().generation);
      expect(scope.commit((w) => w.updateRun({ steps: 1 }).steps)).toBe(1);
      expect(engine.store.run().steps).toBe(1);
      await scope.persist();

      pause(engine);
      const before = engine.store.run();
      let ran = false;
      expect(() =>
        scope.commit((w) => {
          ran = true;
          w.updateRun({ steps: 5 });
        }),
      ).toThrow(StaleUnit);
      expect(ran).toBe(false);
      expect(engine.store.run()).toEqual(before);
      await expect(scope.persist()).rejects.toThrow(StaleUnit);
    });
  });

  it("streams text only while the unit is current", async () => {
    await withRunningEngine(async (engine) => {
      const delta = vi.spyOn(engine.events, "delta");
      const scope = new UnitScope(engine, engine.store.run().generation);
      scope.streamText({ index: 0, text: "a", offset: 0 });
      pause(engine);
      scope.streamText({ index: 0, text: "b", offset: 1 });
      expect(delta.mock.calls.map(([data]) => data.text)).toEqual(["a"]);
    });
  });

  it("drops the drafts when the generation moves on (a pause), and a stale unit drops none after", async () => {
    await withRunningEngine(async (engine) => {
      vi.spyOn(engine.events.streams, "watched").mockReturnValue(true);
      const broadcast = vi.spyOn(engine.events.streams, "broadcast").mockImplementation(() => undefined);
      const resets = () =>
        broadcast.mock.calls.map(([json]) => JSON.parse(json) as { type: string; data: unknown }).filter((f) => f.type === "delta_reset");
      const scope = new UnitScope(engine, engine.store.run().generation);
      scope.streamText({ index: 0, text: "a", offset: 0 });
      scope.streamText({ index: 1, text: "b", offset: 0 });
      pause(engine);
      expect(resets().map((f) => f.data)).toEqual([{ indices: [0, 1] }]);
      scope.dropDrafts();
      expect(resets()).toHaveLength(1);
    });
  });
});

describe("a model unit that ends without saving", () => {
  it("drops what it streamed, whatever ended it (here an unexpected fault)", async () => {
    await withRunningEngine(async (engine) => {
      vi.spyOn(engine.events.streams, "watched").mockReturnValue(true);
      const broadcast = vi.spyOn(engine.events.streams, "broadcast").mockImplementation(() => undefined);
      vi.spyOn(engine.inflight, "begin").mockImplementationOnce(() => {
        engine.events.delta({ index: 0, text: "half an answer", offset: 0 }, engine.nowIso());
        throw new Error("a fault after the first delta");
      });
      await runUnit(engine, { kind: "model", maxTokens: 100 });
      const frames = broadcast.mock.calls.map(([json]) => JSON.parse(json) as { type: string; data: unknown });
      expect(frames.filter((f) => f.type === "delta_reset").map((f) => f.data)).toEqual([{ indices: [0] }]);
    });
  });
});

describe("a unit made stale while it ran", () => {
  it("is recorded as a discarded step, and leaves the run's ready time as the pause left it", async () => {
    await withRunningEngine(async (engine) => {
      // The discovery unit begins its call, then awaits: the pause comes in between.
      vi.spyOn(engine.inflight, "begin").mockImplementationOnce(() => {
        pause(engine);
        engine.store.putRun({ ...engine.store.run(), ready_at: 123 });
        return new AbortController();
      });
      await runUnit(engine, { kind: "discover" });
      expect(engine.store.steps(0, 10).map((step) => step.outcome)).toEqual(["discarded"]);
      expect(engine.store.run()).toMatchObject({ status: "paused", ready_at: 123 });
    });
  });

  it("stops at a stale commit in the middle of a step: nothing after it is written", async () => {
    await withRunningEngine(async (engine) => {
      // Two calls of tools the session does not have: each gets its error result in a commit of its own.
      const now = engine.nowIso();
      const uses = ["call_a", "call_b"].map((id) => ({ type: "tool_use" as const, id, name: `missing_${id}`, input: {} }));
      engine.transaction(() => {
        const message = engine.store.appendMessage("assistant", uses, now);
        uses.forEach((use, position) =>
          engine.store.insertToolCall({
            id: use.id,
            step: 1,
            messageSeq: message.seq,
            position,
            name: use.name,
            input: {},
            status: "pending",
            now,
          }),
        );
      });
      // The first result's commit also pauses the run: the second commit finds the unit stale.
      const finishCall = engine.finishCall.bind(engine);
      const finished = vi.spyOn(engine, "finishCall").mockImplementation((...args) => {
        finishCall(...args);
        pause(engine);
      });
      const before = engine.store.run().attempts;
      await runUnit(engine, { kind: "tools" });
      expect(finished).toHaveBeenCalledTimes(1);
      expect(engine.store.toolCall("call_a")?.status).toBe("error");
      expect(engine.store.toolCall("call_b")?.status).toBe("pending");
      expect(engine.store.steps(0, 10).map((step) => step.outcome)).toEqual(["discarded"]);
      // A stale unit is no fault: no attempt counted, no backoff.
      expect(engine.store.run()).toMatchObject({ status: "paused", attempts: before, next_attempt_at: 0 });
    });
  });
});
