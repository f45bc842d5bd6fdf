import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CANCELLED_BEFORE_RESULT } from "../../src/sessions/object/session-object";
import type { RunState } from "../../src/sessions/object/store/store";
import {
  alarmAt,
  createAndStart,
  getSession,
  messages,
  newTestSession,
  sessionInit,
  toolCalls,
  waitForStatus,
} from "../support/agent-session";

const toolUse = (id: string, name = "get_time", input: unknown = {}) => ({ type: "tool_use", id, name, input });
const text = (t: string) => ({ type: "text", text: t });

describe("a run", () => {
  it("runs tool_use then text to done with four messages in order", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [text("let me look"), toolUse("toolu_1")] } }, { reply: { content: [text("it is noon")] } });
    await createAndStart(t, "what time is it?", { tools: [{ type: "builtin", name: "get_time" }] });
    const done = await waitForStatus(t, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn", error: null });
    expect(done.usage).toEqual({
      steps: 2,
      input_tokens: 20,
      output_tokens: 10,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      subagents: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
    });

    const history = await messages(t);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(history.map((m) => m.seq)).toEqual([...history.map((m) => m.seq)].sort((a, b) => a - b));
    expect(history[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
    expect(history[3]!.content).toEqual([text("it is noon")]);

    const calls = await toolCalls(t);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ id: "toolu_1", name: "get_time", status: "done", step: 1, is_error: false });

    // The model was sent the tool definitions and, on the second call, the whole history.
    const requests = await t.model.requests();
    expect(requests).toHaveLength(2);
    const first = requests[0]!.body as { tools: { name: string }[]; max_tokens: number };
    expect(first.tools.map((tool) => tool.name)).toEqual(["get_time"]);
    expect(first.max_tokens).toBe(4096);
    expect((requests[1]!.body as { messages: unknown[] }).messages).toHaveLength(3);
    expect(requests[0]!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(await alarmAt(t)).toBeNull();
  });

  it("refuses start while a run is going, and allows it after", async () => {
    const t = newTestSession();
    await t.model.script({ hang: true });
    await createAndStart(t, "first");
    await t.model.waitForRequests(1);
    const refused = await t.stub.start("second");
    expect(refused).toEqual({ ok: false, reason: "run_going" });
    expect(await t.stub.create(sessionInit(t), null)).toEqual({ ok: false, reason: "session_exists" });

    expect((await t.stub.cancel()).ok).toBe(true);
    await t.model.script({ reply: { content: [text("second answer")] } });
    const restarted = await t.stub.start("second");
    expect(restarted).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["done"]);
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "user", "assistant"]);
  });

  it("discards a model answer that arrives after a cancel, and aborts the call", async () => {
    const t = newTestSession();
    await t.model.script({ delay_ms: 1500, reply: { content: [text("too late")] } });
    await createAndStart(t, "slow question");
    await t.model.waitForRequests(1);
    const cancelled = await t.stub.cancel();
    expect(cancelled).toMatchObject({ ok: true, value: { status: "cancelled", stop_reason: "cancelled" } });

    // The in-flight request was abandoned by the platform: it stops costing tokens.
    const [request] = await waitFor(async () => {
      const seen = await t.model.requests();
      return seen[0]?.disconnected_at ? seen : null;
    });
    expect(request!.answered_at).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const session = await getSession(t);
    expect(session.status).toBe("cancelled");
    expect(session.usage.steps).toBe(0);
    expect(await messages(t)).toHaveLength(1);
    expect(await alarmAt(t)).toBeNull();
  });

  it("discards an answer from an older generation even when the call could not be aborted", async () => {
    const t = newTestSession();
    await t.model.script({ delay_ms: 800, reply: { content: [text("stale answer")] } }, { reply: { content: [text("fresh answer")] } });
    await createAndStart(t, "question");
    await t.model.waitForRequests(1);
    // A cancel and a new start happened elsewhere (say, before a restart) while this call
    // was in flight: the run is running again, but under a newer generation.
    await runInDurableObject(t.stub, async (_instance, state) => {
      const run = state.storage.kv.get<RunState>("run")!;
      state.storage.kv.put("run", { ...run, generation: run.generation + 2 });
      await state.storage.setAlarm(Date.now() + 1500);
    });
    const [stale] = await waitFor(async () => {
      const seen = await t.model.requests();
      return seen[0]?.answered_at ? seen : null;
    });
    expect(stale!.answered_at).toBeDefined();
    // The newer generation goes on at once; the stale answer is never among what it saved.
    const done = await waitForStatus(t, ["done"]);
    expect(done.usage.steps).toBe(1);
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("question")], [text("fresh answer")]]);
  });

  it("gives open tool calls an error result when cancelled", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [toolUse("toolu_a", "ask_user"), toolUse("toolu_b")] } });
    await createAndStart(t, "go", {
      tools: [
        { type: "client", name: "ask_user", description: "asks", input_schema: { type: "object" } },
        { type: "builtin", name: "get_time" },
      ],
    });
    await waitForStatus(t, ["waiting_tool_output"]);
    await t.stub.cancel();
    const calls = await toolCalls(t);
    expect(calls.find((c) => c.id === "toolu_a")).toMatchObject({ status: "error", output: CANCELLED_BEFORE_RESULT });
    expect(calls.find((c) => c.id === "toolu_b")).toMatchObject({ status: "done" });
    const last = (await messages(t)).at(-1)!;
    expect(last.role).toBe("user");
    expect(last.content.map((b) => (b.type === "tool_result" ? b.tool_use_id : b.type))).toEqual(["toolu_a", "toolu_b"]);
  });

  it("pauses a run, aborting the call in flight, and resumes it", async () => {
    const t = newTestSession();
    await t.model.script({ hang: true }, { reply: { content: [text("resumed answer")] } });
    await createAndStart(t, "question");
    await t.model.waitForRequests(1);
    expect(await t.stub.pause()).toMatchObject({ ok: true, value: { status: "paused" } });
    expect(await alarmAt(t)).toBeNull();
    expect(await t.stub.pause()).toMatchObject({ ok: false, reason: "wrong_status", action: "pause" });
    expect(await t.stub.resume()).toMatchObject({ ok: true, value: { status: "running" } });
    await waitForStatus(t, ["done"]);
    expect((await messages(t)).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(await t.stub.resume()).toMatchObject({ ok: false, reason: "wrong_status", action: "resume" });
  });

  it("answers not found for a session that was never created, and stores nothing", async () => {
    const t = newTestSession();
    for (const result of [
      await t.stub.get(),
      await t.stub.start("hi"),
      await t.stub.cancel(),
      await t.stub.approve("x"),
      await t.stub.listMessages(0, 10),
    ]) {
      expect(result).toEqual({ ok: false, reason: "session_not_found" });
    }
    const response = await t.stub.fetch("http://agent/");
    expect(response.status).toBe(404);
    await runInDurableObject(t.stub, async (_instance, state) => {
      expect([...state.storage.kv.list()]).toEqual([]);
      expect(await state.storage.getAlarm()).toBeNull();
      const tables = state.storage.sql
        .exec("SELECT name FROM sqlite_master WHERE name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
        .toArray();
      expect(tables).toEqual([]);
    });
  });

  it("rejects unknown built-in tools and duplicate names at create", async () => {
    const t = newTestSession();
    expect(await t.stub.create(sessionInit(t, { tools: [{ type: "builtin", name: "rm_rf" }] }), null)).toMatchObject({
      ok: false,
      reason: "invalid",
    });
    expect(
      await t.stub.create(
        sessionInit(t, {
          tools: [
            { type: "builtin", name: "get_time" },
            { type: "builtin", name: "get_time" },
          ],
        }),
        null,
      ),
    ).toMatchObject({ ok: false, reason: "invalid" });
    expect(await t.stub.create(sessionInit(t), "   ")).toMatchObject({ ok: false, reason: "invalid" });
    expect(await t.stub.get()).toEqual({ ok: false, reason: "session_not_found" });
  });
});

async function waitFor<T>(probe: () => Promise<T | null>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("answers that cannot be kept as they are", () => {
  it("keeps no empty assistant turn, so the next run is not refused", async () => {
    const t = newTestSession();
    await t.model.script(
      { reply: { content: [{ type: "text", text: "" }], usage: { input_tokens: 5, output_tokens: 0 } } },
      { reply: { content: [text("second")] } },
    );
    await createAndStart(t, "first");
    expect(await waitForStatus(t, ["done", "failed"])).toMatchObject({ status: "done", usage: { steps: 1, input_tokens: 5 } });
    await t.stub.start("again");
    await waitForStatus(t, ["done", "failed"]);
    const sent = (await t.model.requests())[1]!.body as { messages: { role: string; content: unknown[] }[] };
    // The task ends the cached prefix.
    expect(sent.messages).toEqual([{ role: "user", content: [{ ...text("first"), cache_control: { type: "ephemeral" } }, text("again")] }]);
  });

  it("fails the run, counting the tokens, when the model reuses a tool_use id", async () => {
    const t = newTestSession();
    const use = { type: "tool_use", id: "toolu_same", name: "get_time", input: {} };
    await t.model.script({ reply: { content: [use] } }, { reply: { content: [use] } });
    await createAndStart(t, "loop", { tools: [{ type: "builtin", name: "get_time" }] });
    const failed = await waitForStatus(t, ["failed", "done"]);
    expect(failed).toMatchObject({ status: "failed", stop_reason: "model_error", usage: { steps: 2, input_tokens: 20 } });
    expect(failed.error).toContain("toolu_same");
    expect(await t.model.requests()).toHaveLength(2);
  });
});
