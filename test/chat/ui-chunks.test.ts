/**
 * The chat turn's translation of session events into UI message parts: every part is one the
 * published `ai` package's own schema accepts, and its own reader (`readUIMessageStream`) builds
 * the expected message from them, live (deltas, then the stored answer) and on replay (no deltas).
 */
import { readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from "ai";
import { describe, expect, it } from "vitest";
import { ChatTurn, finishReason, type UiChunk } from "../../src/chat/ui-chunks";
import type { EventFrame, ToolCallEventData } from "../../src/sessions/object/events/frames";

const AT = "2026-01-01T00:00:00.000Z";
let nextId = 1;
const stored = (type: EventFrame["type"], data: unknown): EventFrame => ({ id: nextId++, type, data, created_at: AT });
const delta = (index: number, text: string, offset: number): EventFrame => ({
  type: "delta",
  data: { index, text, offset },
  created_at: AT,
});
const status = (value: string, stop_reason: string | null = null, error: string | null = null) =>
  stored("status", { status: value, stop_reason, error });
const assistant = (...content: unknown[]) => stored("message", { seq: 1, role: "assistant", content, created_at: AT });
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

function translate(frames: EventFrame[], clientTools: string[] = []): UiChunk[] {
  const turn = new ChatTurn(new Set(clientTools));
  return [...turn.start(), ...frames.flatMap((frame) => turn.frame(frame))];
}

async function accepted(chunks: UiChunk[]): Promise<UIMessageChunk[]> {
  const validator = uiMessageChunkSchema();
  return Promise.all(
    chunks.map(async (chunk) => {
      const result = await validator.validate!(chunk);
      if (!result.success) throw new Error(`the ai package refuses ${JSON.stringify(chunk)}: ${String(result.error)}`);
      return result.value as UIMessageChunk;
    }),
  );
}

async function message(chunks: UiChunk[]): Promise<UIMessage | undefined> {
  const parsed = await accepted(chunks);
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      parsed.forEach((chunk) => controller.enqueue(chunk));
      controller.close();
    },
  });
  let last: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream })) last = snapshot;
  return last;
}

const TOOL_RUN = [
  status("running"),
  assistant({ type: "tool_use", id: "toolu_1", name: "get_time", input: {} }),
  stored("tool_call", call("toolu_1", "get_time", { status: "running" })),
  stored("tool_result", call("toolu_1", "get_time", { status: "done", output: "12:00" })),
];

describe("ChatTurn", () => {
  it("ends a failed attempt's parts on delta_reset, names them in a transient data part, and writes the retry under new ids", async () => {
    const reset: EventFrame = { type: "delta_reset", data: { indices: [0] }, created_at: AT };
    const chunks = translate([
      status("running"),
      delta(0, "Stale draft", 0),
      reset,
      delta(0, "Fresh", 0),
      assistant({ type: "text", text: "Fresh answer" }),
      status("idle", "end_turn"),
    ]);
    const resetAt = chunks.findIndex((chunk) => chunk.type === "data-delta-reset");
    expect(chunks.slice(resetAt - 1, resetAt + 1)).toEqual([
      { type: "text-end", id: "text-1-0" },
      { type: "data-delta-reset", data: { ids: ["text-1-0"] }, transient: true },
    ]);
    expect(chunks.filter((chunk) => chunk.type === "text-start").map((chunk) => chunk.id)).toEqual(["text-1-0", "text-1-0-retry1"]);
    // useChat alone keeps the ended draft as a part of its own; the retry's part holds the whole saved answer.
    const shown = await message(chunks);
    expect(shown?.parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text)).toEqual([
      "Stale draft",
      "Fresh answer",
    ]);
  });

  it("streams deltas, then closes the text with the stored answer: the same message as a replay without deltas", async () => {
    const live = translate([
      ...TOOL_RUN,
      delta(0, "It is ", 0),
      delta(0, "noon.", 6),
      assistant({ type: "text", text: "It is noon." }),
      status("done", "end_turn"),
    ]);
    const replay = translate([...TOOL_RUN, assistant({ type: "text", text: "It is noon." }), status("done", "end_turn")]);
    expect(live.map((chunk) => chunk.type)).toEqual([
      "start",
      "start-step",
      "tool-input-start",
      "tool-input-available",
      "finish-step",
      "tool-output-available",
      "start-step",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "finish-step",
      "finish",
    ]);
    const fromLive = await message(live);
    const fromReplay = await message(replay);
    expect(fromLive?.parts).toEqual(fromReplay?.parts);
    expect(fromLive?.parts).toEqual([
      { type: "step-start" },
      expect.objectContaining({
        type: "dynamic-tool",
        toolName: "get_time",
        toolCallId: "toolu_1",
        state: "output-available",
        output: "12:00",
        providerExecuted: true,
      }),
      { type: "step-start" },
      expect.objectContaining({ type: "text", text: "It is noon.", state: "done" }),
    ]);
  });

  it("adds only new text when a retried call writes its block again from 0", async () => {
    const chunks = translate([
      status("running"),
      delta(0, "Hel", 0),
      delta(0, "Hello", 0),
      delta(0, " there", 5),
      assistant({ type: "text", text: "Hello there" }),
      status("done", "end_turn"),
    ]);
    expect((await message(chunks))?.parts.at(-1)).toMatchObject({ type: "text", text: "Hello there" });
  });

  it("asks for approval and hands the turn back, naming the call as the approval", async () => {
    const turn = new ChatTurn(new Set());
    const chunks = [
      ...turn.start(),
      ...[
        status("running"),
        assistant({ type: "tool_use", id: "toolu_a", name: "wire", input: { n: 1 } }),
        stored("tool_call", call("toolu_a", "wire", { status: "waiting_approval" })),
        status("waiting_approval"),
      ].flatMap((f) => turn.frame(f)),
    ];
    expect(turn.ended).toBe(true);
    expect(chunks).toContainEqual({ type: "tool-approval-request", approvalId: "toolu_a", toolCallId: "toolu_a" });
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "tool-calls" });
    expect((await message(chunks))?.parts.at(-1)).toMatchObject({ state: "approval-requested", approval: { id: "toolu_a" } });
  });

  it("shows an approved call still going as answered, and never a finished one again", () => {
    const chunks = translate([
      status("running"),
      assistant({ type: "tool_use", id: "toolu_p", name: "wire", input: {} }),
      stored("tool_call", call("toolu_p", "wire", { status: "running", decision: "approved" })),
      stored("tool_call", call("toolu_p", "wire", { status: "done", output: "ok", decision: "approved" })),
      stored("tool_result", call("toolu_p", "wire", { status: "done", output: "ok", decision: "approved" })),
    ]);
    expect(chunks.filter((chunk) => chunk.type.startsWith("tool-approval") || chunk.type.startsWith("tool-output"))).toEqual([
      { type: "tool-approval-response", approvalId: "toolu_p", approved: true },
      { type: "tool-output-available", toolCallId: "toolu_p", output: "ok", dynamic: true },
    ]);
  });

  it("leaves a client tool's call to the page (not provider-executed) and shows denied and failed calls", async () => {
    const client = translate(
      [status("running"), assistant({ type: "tool_use", id: "toolu_c", name: "pick", input: {} }), status("waiting_tool_output")],
      ["pick"],
    );
    expect(client.find((chunk) => chunk.type === "tool-input-available")).not.toHaveProperty("providerExecuted");
    const denied = translate([
      ...TOOL_RUN.slice(0, 2),
      stored("tool_result", call("toolu_1", "get_time", { status: "error", is_error: true, output: "denied", decision: "denied" })),
    ]);
    expect(denied.at(-1)).toEqual({ type: "tool-output-denied", toolCallId: "toolu_1" });
    const failed = translate([
      ...TOOL_RUN.slice(0, 2),
      stored("tool_result", call("toolu_1", "get_time", { status: "error", is_error: true, output: "boom" })),
    ]);
    expect(failed.at(-1)).toMatchObject({ type: "tool-output-error", errorText: "boom" });
    await accepted([...client, ...denied, ...failed]);
  });

  it("shows a credential the user must connect as a data part the ai package reads into the message", async () => {
    const required = { credential: "github", owner: "end_user", subject: "alice", code: "credential_missing" };
    const chunks = translate([...TOOL_RUN.slice(0, 2), stored("credential_required", required)]);
    expect(chunks.at(-1)).toEqual({ type: "data-credential-required", data: required });
    const built = await message(chunks);
    expect(built?.parts).toContainEqual(expect.objectContaining({ type: "data-credential-required", data: required }));
  });

  it("ends a failed run with an error part, and a cancelled one with abort", async () => {
    const failed = translate([status("running"), delta(0, "Par", 0), status("failed", "model_error", "The model provider answered 500.")]);
    expect(failed.slice(-4)).toEqual([
      { type: "text-end", id: "text-1-0" },
      { type: "finish-step" },
      { type: "error", errorText: "The model provider answered 500." },
      { type: "finish", finishReason: "error" },
    ]);
    expect(translate([status("running"), status("cancelled", "cancelled")]).at(-1)).toEqual({ type: "abort", reason: "cancelled" });
    await accepted(failed);
  });

  it.each([
    ["done", "end_turn", "stop"],
    ["done", "max_tokens", "length"],
    ["done", "refusal", "content-filter"],
    ["done", "step_limit", "other"],
    ["waiting_approval", null, "tool-calls"],
    ["failed", "invalid_output", "error"],
  ] as const)("maps %s/%s to the finish reason %s", (state, stop, reason) => {
    expect(finishReason(state, stop)).toBe(reason);
  });
});
