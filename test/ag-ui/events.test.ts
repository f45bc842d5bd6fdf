/**
 * The AG-UI run's translation of session events: every event is one `@ag-ui/core`'s schema
 * accepts, the sequence passes `@ag-ui/client`'s own `verifyEvents`, and each way a run is handed
 * back (an answer, an approval asked, a client tool's call, a failure, a cancel) ends it as the
 * protocol's 1.0 outcomes say.
 */
import { verifyEvents } from "@ag-ui/client";
import { EventType } from "@ag-ui/core";
import { EventSchema } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it } from "vitest";
import { AgUiRun, type AgUiEvent } from "../../src/ag-ui/events";
import type { EventFrame, ToolCallEventData } from "../../src/sessions/object/events/frames";

const AT = "2026-01-01T00:00:00.000Z";
let nextId = 1;
const stored = (type: EventFrame["type"], data: unknown): EventFrame => ({ id: nextId++, type, data, created_at: AT });
const delta = (index: number, text: string, offset: number, kind?: "reasoning"): EventFrame => ({
  type: "delta",
  data: { index, text, offset, ...(kind ? { kind } : {}) },
  created_at: AT,
});
const status = (value: string, stop_reason: string | null = null, error: string | null = null) =>
  stored("status", { status: value, stop_reason, error });
const assistant = (...content: unknown[]) => stored("message", { seq: 2, role: "assistant", content, created_at: AT });
const call = (id: string, name: string, fields: Partial<ToolCallEventData>): ToolCallEventData => ({
  id,
  name,
  step: 1,
  input: {},
  status: "running",
  output: null,
  is_error: false,
  decided_by: null,
  decided_at: null,
  decision: null,
  ...fields,
});

function translate(frames: EventFrame[], clientTools: string[] = []): AgUiEvent[] {
  const run = new AgUiRun("thread-1", "run-1", new Set(clientTools));
  return [...run.start(), ...frames.flatMap((frame) => run.frame(frame))];
}

/** The events as the client would take them: each valid for the core schema, the order valid for the client's verifier. */
async function accepted(events: AgUiEvent[]): Promise<AgUiEvent[]> {
  for (const event of events) {
    const result = EventSchema.safeParse(event);
    if (!result.success) throw new Error(`@ag-ui/core refuses ${JSON.stringify(event)}: ${result.error.message}`);
  }
  return (await lastValueFrom(from(events).pipe(verifyEvents(), toArray()))) as AgUiEvent[];
}

const types = (events: AgUiEvent[]) => events.map((event) => event.type);

describe("AgUiRun", () => {
  it("ends a failed attempt's messages on delta_reset, names them in a CUSTOM event, and streams the retry as new messages", async () => {
    const reset: EventFrame = { type: "delta_reset", data: { indices: [0, 1] }, created_at: AT };
    const events = await accepted(
      translate([
        delta(0, "Hmm", 0, "reasoning"),
        delta(1, "Stale", 0),
        reset,
        delta(0, "Fresh", 0),
        assistant({ type: "text", text: "Fresh answer" }),
        status("idle", "end_turn"),
      ]),
    );
    const custom = events.find((event) => event.type === EventType.CUSTOM);
    expect(custom).toMatchObject({ name: "delta_reset", value: { messageIds: ["run-1-text-0-1", "run-1-reasoning-0-0"] } });
    const starts = events.flatMap((event) => (event.type === EventType.TEXT_MESSAGE_START ? [event.messageId as string] : []));
    expect(starts).toEqual(["run-1-text-0-1", "run-1-text-0-0-retry1"]);
    const after = events.slice(events.indexOf(custom!));
    const text = after.flatMap((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? [event.delta as string] : [])).join("");
    expect(text).toBe("Fresh answer");
  });

  it("streams text, then completes it from the stored answer, and finishes on the answer", async () => {
    const events = await accepted(
      translate([delta(0, "Hel", 0), delta(0, "lo", 3), assistant({ type: "text", text: "Hello there" }), status("idle", "end_turn")]),
    );
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    const text = events.flatMap((event) => (event.type === EventType.TEXT_MESSAGE_CONTENT ? [event.delta as string] : [])).join("");
    expect(text).toBe("Hello there");
    expect(events.at(-1)).toMatchObject({ threadId: "thread-1", runId: "run-1", outcome: { type: "success" } });
  });

  it("sends a replayed answer (no deltas) whole, with reasoning as reasoning events", async () => {
    const events = await accepted(
      translate([
        delta(0, "think", 0, "reasoning"),
        assistant({ type: "thinking", thinking: "thinking", signature: "s" }, { type: "text", text: "Done." }),
        status("done", "end_turn"),
      ]),
    );
    expect(types(events)).toEqual([
      EventType.RUN_STARTED,
      EventType.REASONING_START,
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
      EventType.REASONING_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
  });

  it("follows an answer that cites pages with a CUSTOM sources event naming its message, each page once", async () => {
    const cite = (url: string) => ({ type: "web_search_result_location", url, title: url, cited_text: "…", encrypted_index: "x" });
    const events = await accepted(
      translate([
        assistant(
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
          { type: "text", text: "A.", citations: [cite("https://a.example/"), cite("https://b.example/")] },
          { type: "text", text: "B.", citations: [cite("https://a.example/")] },
        ),
        status("done", "end_turn"),
      ]),
    );
    const custom = events.filter((event) => event.type === EventType.CUSTOM);
    expect(custom).toEqual([
      {
        type: EventType.CUSTOM,
        name: "sources",
        value: {
          messageId: "run-1-text-0-2",
          sources: [
            { kind: "url", url: "https://a.example/", title: "https://a.example/" },
            { kind: "url", url: "https://b.example/", title: "https://b.example/" },
          ],
        },
      },
    ]);
    expect(types(events).indexOf(EventType.CUSTOM)).toBeGreaterThan(types(events).lastIndexOf(EventType.TEXT_MESSAGE_END));
  });

  it("shows a platform tool's call and result, attached to the step's text", async () => {
    const time = call("toolu_1", "get_time", { status: "done", output: "12:00" });
    const events = await accepted(
      translate([
        assistant({ type: "text", text: "Checking." }, { type: "tool_use", id: "toolu_1", name: "get_time", input: { zone: "UTC" } }),
        stored("tool_call", call("toolu_1", "get_time", { status: "running" })),
        stored("tool_result", time),
        assistant({ type: "text", text: "It is noon." }),
        status("idle", "end_turn"),
      ]),
    );
    const start = events.find((event) => event.type === EventType.TOOL_CALL_START)!;
    const text = events.find((event) => event.type === EventType.TEXT_MESSAGE_START)!;
    expect(start).toMatchObject({ toolCallId: "toolu_1", toolCallName: "get_time", parentMessageId: text.messageId });
    expect(events.find((event) => event.type === EventType.TOOL_CALL_ARGS)).toMatchObject({ delta: '{"zone":"UTC"}' });
    expect(events.find((event) => event.type === EventType.TOOL_CALL_RESULT)).toMatchObject({ toolCallId: "toolu_1", content: "12:00" });
    // Two steps' messages never share an id.
    const ids = events.filter((event) => event.type === EventType.TEXT_MESSAGE_START).map((event) => event.messageId);
    expect(new Set(ids).size).toBe(2);
  });

  it("ends a run whose call waits for approval with an interrupt naming the call", async () => {
    const waiting = call("toolu_a", "refund", { status: "waiting_approval", input: { amount: 5 } });
    const events = await accepted(
      translate([
        assistant({ type: "tool_use", id: "toolu_a", name: "refund", input: { amount: 5 } }),
        stored("tool_call", waiting),
        status("waiting_approval"),
      ]),
    );
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: "interrupt", interrupts: [{ id: "toolu_a", reason: "tool_approval", toolCallId: "toolu_a" }] },
    });
  });

  it("ends a run on a client tool's call as a success naming it pending, and never echoes the client's own output", async () => {
    const events = await accepted(
      translate(
        [
          assistant({ type: "tool_use", id: "toolu_c", name: "pick_color", input: {} }),
          stored("tool_call", call("toolu_c", "pick_color", { status: "waiting_tool_output" })),
          status("waiting_tool_output"),
        ],
        ["pick_color"],
      ),
    );
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "success", pendingToolCallIds: ["toolu_c"] } });
    const next = await accepted(
      translate(
        [
          stored("tool_result", call("toolu_c", "pick_color", { status: "done", output: "blue" })),
          assistant({ type: "text", text: "Blue it is." }),
          status("idle", "end_turn"),
        ],
        ["pick_color"],
      ),
    );
    expect(types(next)).not.toContain(EventType.TOOL_CALL_RESULT);
  });

  it("ends a failed run with RUN_ERROR and a cancelled one with the cancelled outcome, closing what was open", async () => {
    const failed = await accepted(translate([delta(0, "partial", 0), status("failed", "error", "the provider failed")]));
    expect(types(failed).slice(-2)).toEqual([EventType.TEXT_MESSAGE_END, EventType.RUN_ERROR]);
    expect(failed.at(-1)).toMatchObject({ message: "the provider failed", code: "error" });
    const cancelled = await accepted(translate([status("cancelled", "cancelled")]));
    expect(cancelled.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: "cancelled" } });
  });

  it("names the calls already waiting when a run ends at once (answers given for only some)", async () => {
    const run = new AgUiRun("t", "r", new Set());
    run.waitingAlready([call("toolu_b", "refund", { status: "waiting_approval" })]);
    const events = await accepted(run.end({ status: "waiting_approval", stop_reason: null, error: null }));
    expect(events.at(-1)).toMatchObject({ outcome: { type: "interrupt", interrupts: [{ id: "toolu_b" }] } });
  });

  it("sends nothing after the run ended, and a gateway failure as RUN_ERROR once", async () => {
    const run = new AgUiRun("t", "r", new Set());
    const events = [...run.start(), ...run.frame(status("idle", "end_turn")), ...run.frame(delta(0, "late", 0)), ...run.fail("x", "y")];
    expect(types(await accepted(events))).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
  });
});
