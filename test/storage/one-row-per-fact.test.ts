/**
 * Session-object migration 13 on storage the version before it wrote: the event log moved to one
 * row per transaction with its ids and cursors kept, messages and steps keep their seqs without
 * AUTOINCREMENT, and tool calls keep their order and their open call without the `reported` flag.
 * The session then goes on: an approval runs the open call, and every new id follows the old ones.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo, putSessionStateV12, userTables } from "../support/legacy-storage";
import { newTestSession, toolCalls, unwrap, waitForStatus, type TestSession } from "../support/agent-session";
import { storedEvents } from "../support/event-rows";
import { openSse } from "../support/agent-stream";
import type { Page, Step } from "../../src/session-config/types";

/** The last session-object version before one row per fact. */
const BEFORE = 12;

const json = (value: unknown) => JSON.stringify(value);
const use = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });

/** A session at version 12: one answered tool round, a second call waiting for approval, a pruned log. */
function writeV12(storage: DurableObjectStorage, t: TestSession): void {
  migrateSessionTo(storage, BEFORE);
  const at = new Date().toISOString();
  const message = (role: string, kind: string, content: unknown) =>
    storage.sql.exec(
      "INSERT INTO messages (role, content, created_at, tokens, kind) VALUES (?, ?, ?, 5, ?)",
      role,
      json(content),
      at,
      kind,
    );
  message("user", "input", [{ type: "text", text: "what time is it twice?" }]);
  message("assistant", "tool_use", [use("toolu_a"), use("toolu_b")]);
  message("user", "tool_result", [
    { type: "tool_result", tool_use_id: "toolu_a", content: "noon" },
    { type: "tool_result", tool_use_id: "toolu_b", content: "noon" },
  ]);
  message("assistant", "tool_use", [use("toolu_c")]);
  const call = (id: string, step: number, seq: number, position: number, status: string, reported: number, output: string | null) =>
    storage.sql.exec(
      "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, output, reported, created_at) VALUES (?, ?, ?, ?, 'get_time', '{}', ?, ?, ?, ?)",
      id,
      step,
      seq,
      position,
      status,
      output,
      reported,
      at,
    );
  // Inserted out of call order: the new key must order them.
  call("toolu_b", 1, 2, 1, "done", 1, "noon");
  call("toolu_a", 1, 2, 0, "done", 1, "noon");
  call("toolu_c", 2, 4, 0, "waiting_approval", 0, null);
  const events: [string, unknown][] = [
    ["message", { seq: 1 }],
    ["message", { seq: 2 }],
    ["tool_call", { id: "toolu_a", status: "pending" }],
    ["tool_result", { id: "toolu_a", status: "done" }],
    ["message", { seq: 3 }],
    ["message", { seq: 4 }],
    ["status", { status: "waiting_approval", stop_reason: null, error: null }],
  ];
  for (const [type, data] of events) storage.sql.exec("INSERT INTO events (type, data, created_at) VALUES (?, ?, ?)", type, json(data), at);
  storage.sql.exec("DELETE FROM events WHERE id <= 2");
  storage.kv.put("events_pruned_through", 2);
  for (const kind of ["model", "tools", "model"]) {
    storage.sql.exec(
      "INSERT INTO steps (kind, started_at, ended_at, queued_ms, input_tokens, output_tokens, outcome) VALUES (?, 1000, 1010, 1, NULL, NULL, 'ok')",
      kind,
    );
  }
  putSessionStateV12(storage, t, at, {
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    status: "waiting_approval",
    steps: 2,
    stopReason: null,
    revision: 6,
  });
}

describe(`session storage at version ${BEFORE}`, () => {
  it("keeps its events, messages, steps and tool calls, and goes on with ids after the old ones", async () => {
    const t = newTestSession();
    const before = await runInDurableObject(t.stub, (_i, state) => {
      writeV12(state.storage, t);
      return state.storage.sql.exec("SELECT id, type, data, created_at FROM events ORDER BY id").toArray();
    });
    await abortAllDurableObjects();

    expect(unwrap(await t.stub.get())).toMatchObject({ status: "waiting_approval" });
    await runInDurableObject(t.stub, (_i, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      expect(userTables(state.storage)).toContain("event_batches");
      expect(userTables(state.storage)).not.toContain("events");
      // No counter rows: AUTOINCREMENT is gone from every rebuilt table.
      const counters = state.storage.sql.exec("SELECT name FROM sqlite_sequence WHERE name IN ('events', 'messages', 'steps')").toArray();
      expect(counters).toEqual([]);
      expect(storedEvents(state.storage.sql)).toEqual(
        before.map((row) => ({
          id: Number(row.id),
          type: row.type,
          data: JSON.stringify(JSON.parse(String(row.data))),
          created_at: row.created_at,
        })),
      );
    });
    // Call order, decisions and outputs as they were; the waiting call is the one open.
    expect((await toolCalls(t)).map((call) => [call.id, call.status, call.output])).toEqual([
      ["toolu_a", "done", "noon"],
      ["toolu_b", "done", "noon"],
      ["toolu_c", "waiting_approval", null],
    ]);
    const oldSteps = unwrap(await t.stub.listSteps(0, 10)) as Page<Step>;
    expect(oldSteps.data.map((step) => step.seq)).toEqual([1, 2, 3]);

    // A cursor inside the kept log replays from there; one before the pruned ids is reset.
    const replay = await openSse(t, { cursor: 4 });
    await replay.until((w) => w.stored().length >= 3, "the kept events after the cursor");
    expect(replay.stored().map((frame) => frame.id)).toEqual([5, 6, 7]);
    replay.stop();

    await t.model.script({ reply: { content: [{ type: "text", text: "still noon" }] } });
    unwrap(await t.stub.approve("toolu_c", "carol"));
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    // The approved call ran once; its result and the answer follow the old messages.
    const [, , call] = await toolCalls(t);
    expect(call).toMatchObject({ id: "toolu_c", status: "done", decided_by: "carol" });
    const sent = (await t.model.requests())[0]!.body as { messages: { role: string }[] };
    expect(sent.messages).toHaveLength(5);
    await runInDurableObject(t.stub, (_i, state) => {
      expect(
        state.storage.sql
          .exec("SELECT seq, kind FROM messages ORDER BY seq")
          .toArray()
          .map((row) => [row.seq, row.kind]),
      ).toEqual([
        [1, "input"],
        [2, "tool_use"],
        [3, "tool_result"],
        [4, "tool_use"],
        [5, "tool_result"],
        [6, "answer"],
      ]);
      const ids = storedEvents(state.storage.sql).map((row) => row.id);
      expect(ids.slice(0, 5)).toEqual([3, 4, 5, 6, 7]);
      expect(ids.slice(5)).toEqual(Array.from({ length: ids.length - 5 }, (_, n) => 8 + n));
    });
    const steps = unwrap(await t.stub.listSteps(0, 10)) as Page<Step>;
    expect(steps.data.map((step) => step.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});
