/**
 * The event log's retention and what a watcher gets for a cursor, decided purely and kept by
 * the session object: by count as events are added, by age whenever a stream opens.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  countPruneThrough,
  EVENT_PRUNE_BATCH,
  EVENT_RETENTION_COUNT,
  EVENT_RETENTION_MS,
  planReplay,
} from "../../src/sessions/object/events/retention";
import { newTestSession, sessionInit, unwrap } from "../support/agent-session";
import { openSse } from "../support/agent-stream";
import { insertEvents, storedEvents } from "../support/event-rows";

describe("planReplay", () => {
  it.each([
    ["no cursor: a snapshot", null, { lastId: 10, prunedThrough: 0 }, { kind: "snapshot", reset: false }],
    ["a cursor in the log: replay", 4, { lastId: 10, prunedThrough: 0 }, { kind: "replay", after: 4 }],
    ["the newest id: replay of nothing", 10, { lastId: 10, prunedThrough: 0 }, { kind: "replay", after: 10 }],
    ["the last pruned id: nothing lost", 5, { lastId: 10, prunedThrough: 5 }, { kind: "replay", after: 5 }],
    ["before the pruned ones: reset", 4, { lastId: 10, prunedThrough: 5 }, { kind: "snapshot", reset: true }],
    ["0 after pruning: reset", 0, { lastId: 10, prunedThrough: 5 }, { kind: "snapshot", reset: true }],
    ["beyond the log: reset", 11, { lastId: 10, prunedThrough: 0 }, { kind: "snapshot", reset: true }],
  ] as const)("%s", (_name, cursor, bounds, plan) => {
    expect(planReplay(cursor, bounds)).toEqual(plan);
  });
});

describe("countPruneThrough", () => {
  it("waits for a batch past the bound, then keeps the newest events", () => {
    expect(countPruneThrough({ lastId: EVENT_RETENTION_COUNT + EVENT_PRUNE_BATCH, prunedThrough: 0 })).toBeNull();
    expect(countPruneThrough({ lastId: EVENT_RETENTION_COUNT + EVENT_PRUNE_BATCH + 1, prunedThrough: 0 })).toBe(EVENT_PRUNE_BATCH + 1);
    expect(countPruneThrough({ lastId: 5_000, prunedThrough: 3_990 })).toBeNull();
  });
});

const statusRow = (at: string) => ["status", { status: "idle", stop_reason: null, error: null }, at] as const;

async function sessionWithEvents(count: number, at: string) {
  const t = newTestSession();
  unwrap(await t.stub.create(sessionInit(t), null));
  await runInDurableObject(t.stub, (_i, state) => {
    insertEvents(
      state.storage.sql,
      Array.from({ length: count }, () => statusRow(at)),
    );
  });
  return t;
}

async function eventIds(t: ReturnType<typeof newTestSession>): Promise<number[]> {
  return runInDurableObject(t.stub, (_i, state) => storedEvents(state.storage.sql).map((row) => row.id));
}

describe("the event log", () => {
  it(`keeps the newest ${EVENT_RETENTION_COUNT} events, and an older cursor gets a reset snapshot`, async () => {
    const t = await sessionWithEvents(EVENT_RETENTION_COUNT + EVENT_PRUNE_BATCH, new Date().toISOString());
    await t.model.script({ reply: { content: [{ type: "text", text: "ok" }] } });
    unwrap(await t.stub.start("one more event pushes the log over"));
    const ids = await eventIds(t);
    expect(ids.length).toBeLessThanOrEqual(EVENT_RETENTION_COUNT + EVENT_PRUNE_BATCH);
    expect(ids.length).toBeGreaterThanOrEqual(EVENT_RETENTION_COUNT);
    const oldest = ids[0]!;

    const lost = await openSse(t, { cursor: oldest - 2 });
    await lost.untilType("snapshot");
    expect(lost.frames[0]!.data).toMatchObject({ reset: true });
    lost.stop();

    const kept = await openSse(t, { cursor: oldest - 1 });
    await kept.until((w) => w.stored().length >= ids.length, "the kept events");
    expect(kept.frames[0]!.type).not.toBe("snapshot");
    expect(kept.stored()[0]!.id).toBe(oldest);
    kept.stop();
  });

  it("drops events older than the retention when a stream opens, and never reuses their ids", async () => {
    const old = new Date(Date.now() - EVENT_RETENTION_MS - 60_000).toISOString();
    const t = await sessionWithEvents(5, old);
    const watch = await openSse(t, { cursor: 2 });
    await watch.untilType("snapshot");
    expect(watch.frames[0]!.data).toMatchObject({ reset: true, last_event_id: 5 });
    watch.stop();
    expect(await eventIds(t)).toEqual([]);

    // The next event continues after the pruned ids, so old cursors stay meaningful.
    await t.model.script({ reply: { content: [{ type: "text", text: "ok" }] } });
    unwrap(await t.stub.start("hello"));
    expect((await eventIds(t))[0]).toBe(6);
    const resumed = await openSse(t, { cursor: 5 });
    await resumed.untilType("status");
    expect(resumed.frames[0]!.id).toBe(6);
    resumed.stop();
  });
});
