/**
 * Session-object migration 15 on storage the version before it wrote: `tool_calls` keyed by id
 * alone. Every call keeps its columns and its place in call order, the open calls are still the
 * ones after the newest tool_result message, a reused id is still refused, and the session goes
 * on: approving its waiting call runs it once, and the list pages through the calls in order.
 */
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SESSION_MIGRATIONS } from "../../src/sessions/object/store/migrations";
import { OPEN_TOOL_CALLS } from "../../src/sessions/object/store/tool-calls";
import { latestVersion, schemaVersion } from "../../src/storage/migrations";
import { migrateSessionTo, putSessionStateV12 } from "../support/legacy-storage";
import { newTestSession, toolCalls, unwrap, waitForStatus, type TestSession } from "../support/agent-session";
import type { Page, ToolCall } from "../../src/session-config/types";

/** The last session-object version with tool calls keyed by (message_seq, position). */
const BEFORE = 14;

const json = (value: unknown) => JSON.stringify(value);
const use = (id: string) => ({ type: "tool_use", id, name: "get_time", input: {} });

/** A session at version 14: a round of two answered calls, then two calls, one done and one waiting for approval. */
function writeV14(storage: DurableObjectStorage, t: TestSession): void {
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
  message("user", "input", [{ type: "text", text: "what time is it, four times?" }]);
  message("assistant", "tool_use", [use("toolu_a"), use("toolu_b")]);
  message("user", "tool_result", [
    { type: "tool_result", tool_use_id: "toolu_a", content: "noon" },
    { type: "tool_result", tool_use_id: "toolu_b", content: "noon" },
  ]);
  message("assistant", "tool_use", [{ type: "text", text: "twice more" }, use("toolu_c"), use("toolu_d")]);
  const call = (id: string, step: number, seq: number, position: number, status: string, output: string | null) =>
    storage.sql.exec(
      "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, output, created_at, started_at, finished_at) VALUES (?, ?, ?, ?, 'get_time', '{}', ?, ?, ?, ?, ?)",
      id,
      step,
      seq,
      position,
      status,
      output,
      at,
      output === null ? null : at,
      output === null ? null : at,
    );
  // Inserted out of call order, and with ids that sort otherwise: the order is in the columns.
  call("toolu_d", 2, 4, 1, "waiting_approval", null);
  call("toolu_b", 1, 2, 1, "done", "noon");
  call("toolu_c", 2, 4, 0, "done", "one");
  call("toolu_a", 1, 2, 0, "done", "noon");
  putSessionStateV12(storage, t, at, {
    tools: [{ type: "builtin", name: "get_time", requires_approval: true }],
    status: "waiting_approval",
    steps: 2,
    stopReason: null,
    revision: 6,
  });
}

describe(`session storage at version ${BEFORE}`, () => {
  it("keeps every tool call and its order, keyed by id with no second index, and goes on", async () => {
    const t = newTestSession();
    const before = await runInDurableObject(t.stub, (_i, state) => {
      writeV14(state.storage, t);
      return state.storage.sql.exec("SELECT * FROM tool_calls ORDER BY message_seq, position").toArray();
    });
    await abortAllDurableObjects();

    expect(unwrap(await t.stub.get())).toMatchObject({ status: "waiting_approval" });
    await runInDurableObject(t.stub, (_i, state) => {
      expect(schemaVersion(state.storage)).toBe(latestVersion(SESSION_MIGRATIONS));
      // One B-tree: the key is the id, and no index is left beside it.
      const indexes = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tool_calls'").toArray();
      expect(indexes).toEqual([]);
      const key = state.storage.sql
        .exec<{ name: string; pk: number }>("SELECT name, pk FROM pragma_table_info('tool_calls') WHERE pk > 0")
        .toArray();
      expect(key.map((column) => column.name)).toEqual(["id"]);
      // Every row as it was, with the columns later steps added empty (18: `policy`).
      const widened = before.map((row) => ({ ...row, policy: null }));
      expect(state.storage.sql.exec("SELECT * FROM tool_calls ORDER BY message_seq, position").toArray()).toEqual(widened);
      // A reused id is refused by the key, as the unique index refused it.
      expect(() =>
        state.storage.sql.exec(
          "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, created_at) VALUES ('toolu_a', 3, 9, 0, 'get_time', '{}', 'pending', 'x')",
        ),
      ).toThrow(/UNIQUE|PRIMARY KEY|constraint/i);
    });
    // Call order as it was; the calls of the last message are the open ones.
    expect((await toolCalls(t)).map((call) => [call.id, call.status, call.output])).toEqual([
      ["toolu_a", "done", "noon"],
      ["toolu_b", "done", "noon"],
      ["toolu_c", "done", "one"],
      ["toolu_d", "waiting_approval", null],
    ]);
    const pageOne = unwrap(await t.stub.listToolCalls(null, 3)) as Page<ToolCall>;
    expect(pageOne.data.map((call) => call.id)).toEqual(["toolu_a", "toolu_b", "toolu_c"]);
    const pageTwo = unwrap(await t.stub.listToolCalls(pageOne.next_cursor, 3)) as Page<ToolCall>;
    expect(pageTwo.data.map((call) => call.id)).toEqual(["toolu_d"]);
    expect(pageTwo.next_cursor).toBeNull();

    await t.model.script(
      { reply: { content: [{ type: "tool_use", id: "toolu_e", name: "get_time", input: {} }] } },
      { reply: { content: [{ type: "text", text: "four times noon" }] } },
    );
    unwrap(await t.stub.approve("toolu_d", "carol"));
    // toolu_e needs approval too (the session's tool asks for it): approve it once it waits.
    await waitForStatus(t, ["waiting_approval"]);
    unwrap(await t.stub.approve("toolu_e", "carol"));
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", stop_reason: "end_turn" });
    const calls = await toolCalls(t);
    expect(calls.map((call) => [call.id, call.status])).toEqual([
      ["toolu_a", "done"],
      ["toolu_b", "done"],
      ["toolu_c", "done"],
      ["toolu_d", "done"],
      ["toolu_e", "done"],
    ]);
    // The model was sent both results of the last old message together, once.
    const [first] = await t.model.requests();
    const turns = (first!.body as { messages: { role: string; content: { type: string; tool_use_id?: string }[] }[] }).messages;
    expect(
      turns
        .at(-1)!
        .content.filter((block) => block.type === "tool_result")
        .map((block) => block.tool_use_id),
    ).toEqual(["toolu_c", "toolu_d"]);
  });

  it("finds the open calls through their message's blocks, by key", async () => {
    const t = newTestSession();
    await runInDurableObject(t.stub, (_i, state) => writeV14(state.storage, t));
    await abortAllDurableObjects();
    expect(unwrap(await t.stub.get())).toMatchObject({ status: "waiting_approval" });
    await runInDurableObject(t.stub, (_i, state) => {
      const plan = state.storage.sql
        .exec<{ detail: string }>(`EXPLAIN QUERY PLAN ${OPEN_TOOL_CALLS}`)
        .toArray()
        .map((row) => row.detail);
      // The calls are looked up by key, never scanned.
      expect(plan.some((step) => /SEARCH tool_calls USING PRIMARY KEY/.test(step))).toBe(true);
      expect(plan.some((step) => /SCAN tool_calls/.test(step))).toBe(false);
    });
  });
});
