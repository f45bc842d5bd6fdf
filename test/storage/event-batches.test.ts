/**
 * How a batch of events is stored: an event's creation time is kept only where it differs from
 * its batch's, and a batch written in the earlier form (a time on every event) reads the same.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { appendEvents, eventsAfter } from "../../src/sessions/object/store/events";
import { createAndStart, newTestSession, waitForStatus } from "../support/agent-session";

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
      const stored = sql.exec<{ created_at: string; events: string }>("SELECT created_at, events FROM event_batches WHERE first_id = ?", next).one();
      expect(stored.created_at).toBe(later);
      expect(JSON.parse(stored.events)).toEqual([
        ["status", { status: "running" }, earlier],
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
      // A page starting inside a batch begins after the cursor.
      expect(eventsAfter(sql, next + 1, 2).map((event) => event.id)).toEqual([next + 2, next + 3]);
    });
  });
});
