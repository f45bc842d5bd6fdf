/**
 * How a batch of events is stored: an event's creation time is kept only where it differs from
 * its batch's (as milliseconds from it), references and usage in their short forms; and batches
 * written in the earlier forms (a time on every event, `{ seq }`, `{ id, status }`, the usage
 * object) read the same.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { appendEvents, eventsAfter } from "../../src/sessions/object/store/events";
import { expand, toStored } from "../../src/sessions/object/events/frames";
import { createAndStart, newTestSession, sessionInit, unwrap, waitForStatus } from "../support/agent-session";
import { openSse } from "../support/agent-stream";

describe("a usage event's short form", () => {
  it("reads back every count, with reasoning tokens only where they were reported", () => {
    const base = { steps: 3, input_tokens: 30, output_tokens: 15, cache_read_tokens: 7, cache_write_tokens: 2 };
    const rows = { message: () => undefined, toolCall: () => undefined };
    for (const usage of [base, { ...base, reasoning_tokens: 0 }, { ...base, reasoning_tokens: 9 }]) {
      const stored = toStored({ type: "usage", data: usage });
      expect(stored.data).toEqual(expect.any(Array));
      expect(expand(JSON.parse(JSON.stringify(stored)) as typeof stored, rows)).toEqual(usage);
    }
  });
});

describe("an event batch", () => {
  it("stores an event's time only when it differs from its batch's, and reads batches of either form alike", async () => {
    const t = newTestSession();
    await createAndStart(t, "hello");
    await waitForStatus(t, ["done"]);
    await runInDurableObject(t.stub, (_instance, state) => {
      const sql = state.storage.sql;
      const next = Number(sql.exec("SELECT max(last_id) AS id FROM event_batches").one().id) + 1;
      const earlier = "2026-12-03T10:00:00.000Z";
      const later = "2026-12-03T10:00:00.005Z";
      const unusual = "2026-12-03T10:00:00Z"; // no milliseconds: kept as written
      appendEvents(sql, next, [
        ["status", { status: "running" }, earlier],
        ["message", { seq: 9 }, later],
        ["usage", { steps: 1 }, later],
      ]);
      // The form rows had before: every event with its time.
      sql.exec(
        "INSERT INTO event_batches (last_id, first_id, created_at, events) VALUES (?, ?, ?, ?)",
        next + 4,
        next + 3,
        later,
        JSON.stringify([
          ["message", { seq: 10 }, later],
          ["status", { status: "done" }, later],
        ]),
      );
      const stored = sql
        .exec<{ created_at: string; events: string }>("SELECT created_at, events FROM event_batches WHERE first_id = ?", next)
        .one();
      expect(stored.created_at).toBe(later);
      expect(JSON.parse(stored.events)).toEqual([
        ["status", { status: "running" }, -5],
        ["message", { seq: 9 }],
        ["usage", { steps: 1 }],
      ]);
      expect(eventsAfter(sql, next - 1, 10)).toEqual([
        { id: next, type: "status", data: { status: "running" }, created_at: earlier },
        { id: next + 1, type: "message", data: { seq: 9 }, created_at: later },
        { id: next + 2, type: "usage", data: { steps: 1 }, created_at: later },
        { id: next + 3, type: "message", data: { seq: 10 }, created_at: later },
        { id: next + 4, type: "status", data: { status: "done" }, created_at: later },
      ]);
      appendEvents(sql, next + 5, [
        ["status", { status: "idle" }, unusual],
        ["status", { status: "running" }, later],
      ]);
      expect(
        JSON.parse(sql.exec<{ events: string }>("SELECT events FROM event_batches WHERE first_id = ?", next + 5).one().events)[0],
      ).toEqual(["status", { status: "idle" }, unusual]);
      expect(eventsAfter(sql, next + 4, 1)).toEqual([{ id: next + 5, type: "status", data: { status: "idle" }, created_at: unusual }]);
      // A page starting inside a batch begins after the cursor.
      expect(eventsAfter(sql, next + 1, 2).map((event) => event.id)).toEqual([next + 2, next + 3]);
    });
  });

  it("replays a run's events alike from the short forms and from the forms stored before them", async () => {
    const t = newTestSession();
    unwrap(await t.stub.create(sessionInit(t, { tools: [{ type: "builtin", name: "get_time" }] }), null));
    await t.model.script(
      {
        reply: {
          content: [
            { type: "text", text: "checking" },
            { type: "tool_use", id: "toolu_1", name: "get_time", input: {} },
          ],
          usage: { input_tokens: 12, output_tokens: 7, cache_read_input_tokens: 3 },
        },
      },
      { reply: { content: [{ type: "text", text: "noon" }] } },
    );
    unwrap(await t.stub.start("what time is it?"));
    await waitForStatus(t, ["done"]);
    const replay = async () => {
      const watch = await openSse(t, { cursor: 0 });
      await watch.untilClosed();
      return watch.stored();
    };
    const before = await replay();
    expect(before.map((frame) => frame.type)).toEqual([
      "status",
      "message",
      "message",
      "tool_call",
      "usage",
      "tool_result",
      "message",
      "message",
      "usage",
      "status",
    ]);
    expect(before.find((frame) => frame.type === "usage")!.data).toMatchObject({
      steps: 1,
      input_tokens: 12,
      output_tokens: 7,
      cache_read_tokens: 3,
      cache_write_tokens: 0,
    });
    await runInDurableObject(t.stub, (_instance, state) => {
      const sql = state.storage.sql;
      const short = sql
        .exec<{ events: string }>("SELECT events FROM event_batches")
        .toArray()
        .flatMap((row) => JSON.parse(row.events) as [string, unknown][]);
      expect(short.find(([type]) => type === "usage")![1]).toEqual([1, 12, 7, 3, 0]);
      // Each event again as the earlier code stored it: its own row, its own ISO time, its data as an object.
      sql.exec("DELETE FROM event_batches");
      for (const frame of before) {
        const data = frame.data as Record<string, unknown>;
        const old =
          frame.type === "message"
            ? { seq: data.seq }
            : frame.type === "tool_call" || frame.type === "tool_result"
              ? { id: data.id, status: data.status }
              : data;
        sql.exec(
          "INSERT INTO event_batches (last_id, first_id, created_at, events) VALUES (?, ?, ?, ?)",
          frame.id!,
          frame.id!,
          frame.created_at,
          JSON.stringify([[frame.type, old, frame.created_at]]),
        );
      }
    });
    expect(await replay()).toEqual(before);
  });
});
