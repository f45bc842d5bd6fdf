/** A watched session folded from its frames and the pages read beside the stream. */
import { describe, expect, it } from "vitest";
import { eventsUrl, retryDelay } from "../../../console/src/live/session-socket";
import {
  applyFrame,
  earlierPage,
  INITIAL_LIVE_STATE,
  type LiveState,
  liveReducer,
  mergeToolCalls,
  waitingCalls,
} from "../../../console/src/live/session-state";
import type { EventFrame, Message, ToolCallEventData } from "../../../console/src/types";

const AT = "2026-01-01T00:00:00.000Z";
const usage = { steps: 1, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 };
const text = (seq: number, role: "user" | "assistant", words: string): Message => ({
  seq,
  role,
  content: [{ type: "text", text: words }],
  created_at: AT,
});
const call = (id: string, status: ToolCallEventData["status"], step = 1): ToolCallEventData => ({
  id,
  name: "get_time",
  step,
  input: {},
  status,
  output: null,
  is_error: false,
  decided_by: null,
  decided_at: null,
  decision: null,
});

function fold(frames: EventFrame[], from: LiveState = INITIAL_LIVE_STATE): LiveState {
  return frames.reduce(applyFrame, from);
}

const snapshot = (overrides: Partial<Extract<EventFrame, { type: "snapshot" }>["data"]> = {}): EventFrame => ({
  type: "snapshot",
  created_at: AT,
  data: {
    status: "running",
    stop_reason: null,
    error: null,
    usage,
    last_event_id: 7,
    reset: false,
    messages: [text(1, "user", "hi")],
    has_earlier_messages: false,
    open_tool_calls: [],
    ...overrides,
  },
});

describe("folding frames", () => {
  it("starts from a snapshot, then follows status, messages, tool calls, usage and the end", () => {
    const state = fold([
      snapshot(),
      { type: "tool_call", id: 8, created_at: AT, data: call("t1", "running") },
      { type: "tool_result", id: 9, created_at: AT, data: { ...call("t1", "done"), output: "noon" } },
      { type: "message", id: 10, created_at: AT, data: text(2, "assistant", "It is noon.") },
      { type: "usage", id: 11, created_at: AT, data: { ...usage, steps: 2 } },
      { type: "status", id: 12, created_at: AT, data: { status: "done", stop_reason: "end_turn", error: null } },
      { type: "end", created_at: AT, data: { status: "done", stop_reason: "end_turn", error: null } },
    ]);
    expect(state).toMatchObject({ status: "done", stopReason: "end_turn", lastEventId: 12, ended: true, usage: { steps: 2 } });
    expect(state.messages.map((m) => m.seq)).toEqual([1, 2]);
    expect(state.toolCalls).toEqual([{ ...call("t1", "done"), output: "noon" }]);
  });

  it("writes streamed text at its offset, starts a block over at offset 0, and drops it when the answer is saved", () => {
    const delta = (index: number, offset: number, words: string): EventFrame => ({
      type: "delta",
      created_at: AT,
      data: { index, offset, text: words },
    });
    let state = fold([snapshot(), delta(0, 0, "The ti"), delta(0, 6, "me is"), delta(1, 0, "Second")]);
    expect(state.drafts).toEqual(["The time is", "Second"]);
    state = fold([delta(0, 0, "Retry")], state);
    expect(state.drafts[0]).toBe("Retry");
    expect(state.lastEventId).toBe(7);
    state = fold([{ type: "message", id: 8, created_at: AT, data: text(2, "assistant", "Done") }], state);
    expect(state.drafts).toEqual([]);
  });

  it("drops every draft when the stream is lost: a dead attempt's deltas are never reset nor replayed", () => {
    const delta: EventFrame = { type: "delta", created_at: AT, data: { index: 0, offset: 0, text: "dead attempt" } };
    const state = liveReducer(fold([snapshot(), delta]), { kind: "reconnecting" });
    expect(state.drafts).toEqual([]);
  });

  it("drops the drafts a delta_reset names, and keeps the others", () => {
    const delta = (index: number, words: string): EventFrame => ({
      type: "delta",
      created_at: AT,
      data: { index, offset: 0, text: words },
    });
    let state = fold([snapshot(), delta(0, "thinking"), delta(1, "stale answer")]);
    state = fold([{ type: "delta_reset", created_at: AT, data: { indices: [1] } }], state);
    expect(state.drafts).toEqual(["thinking", ""]);
    state = fold([delta(1, "retry")], state);
    expect(state.drafts).toEqual(["thinking", "retry"]);
  });

  it("merges a fresh snapshot into what it holds, and replaces it after a reset", () => {
    const held = fold([snapshot(), { type: "message", id: 8, created_at: AT, data: text(2, "assistant", "a") }]);
    expect(
      fold([snapshot({ messages: [text(2, "assistant", "a"), text(3, "user", "b")], last_event_id: 9 })], held).messages.map((m) => m.seq),
    ).toEqual([1, 2, 3]);
    const reset = fold(
      [snapshot({ reset: true, messages: [text(40, "user", "late")], has_earlier_messages: true, last_event_id: 90 })],
      held,
    );
    expect(reset.messages.map((m) => m.seq)).toEqual([40]);
    expect(reset).toMatchObject({ lastEventId: 90, hasEarlierMessages: true });
  });

  it("never moves a tool call back to an earlier status, and keeps what only the list has", () => {
    const listed = {
      ...call("t1", "done"),
      output: "noon",
      created_at: AT,
      started_at: AT,
      finished_at: AT,
      decided_by: "alice",
      decided_at: AT,
    };
    const merged = mergeToolCalls([listed], [call("t1", "waiting_approval")]);
    expect(merged).toEqual([listed]);
    const later = mergeToolCalls([{ ...call("t1", "waiting_approval"), created_at: AT }], [call("t1", "running")]);
    expect(later).toEqual([{ ...call("t1", "running"), created_at: AT }]);
    expect(mergeToolCalls([call("b", "done", 2)], [call("a", "done", 1)]).map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("passes over a kind of frame it does not know, keeping its id for a reconnect", () => {
    const unknown = { type: "something_new", id: 9, created_at: AT, data: {} } as unknown as EventFrame;
    const state = fold([snapshot(), unknown]);
    expect(state).toEqual({ ...fold([snapshot()]), lastEventId: 9 });
  });

  it("lists the calls that wait for a person", () => {
    const calls = [call("a", "waiting_approval"), call("b", "running"), call("c", "waiting_tool_output")];
    expect(waitingCalls(calls).map((c) => c.id)).toEqual(["a", "c"]);
  });

  it("adds earlier messages before the ones it holds", () => {
    const state = liveReducer(fold([snapshot({ messages: [text(51, "user", "x")], has_earlier_messages: true })]), {
      kind: "earlier_messages",
      messages: [text(1, "user", "first"), text(50, "assistant", "y")],
    });
    expect(state.messages.map((m) => m.seq)).toEqual([1, 50, 51]);
    expect(state.hasEarlierMessages).toBe(false);
  });
});

describe("paging back and reconnecting", () => {
  it("asks for the page just before the oldest message held", () => {
    expect(earlierPage(1, 50)).toBeNull();
    expect(earlierPage(2, 50)).toEqual({ after: 0, limit: 1 });
    expect(earlierPage(121, 50)).toEqual({ after: 70, limit: 50 });
  });

  it("doubles the reconnect wait up to a cap, with jitter", () => {
    expect(retryDelay(0, 0)).toBe(500);
    expect(retryDelay(3, 0)).toBe(4_000);
    expect(retryDelay(20, 0)).toBe(15_000);
    expect(retryDelay(20, 1)).toBe(18_000);
  });

  it("opens the socket on the same host, with the token and the cursor in the query", () => {
    expect(eventsUrl("https://agents.example.com", "ses_1", "t.o.k", 42)).toBe(
      "wss://agents.example.com/v1/sessions/ses_1/events?access_token=t.o.k&after=42",
    );
    expect(eventsUrl("http://127.0.0.1:8787", "ses_1", "t.o.k", null)).toBe(
      "ws://127.0.0.1:8787/v1/sessions/ses_1/events?access_token=t.o.k",
    );
  });
});
