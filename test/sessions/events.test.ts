/**
 * The session object's event streams: snapshot and live frames, replay after a cursor, the end of a
 * stream, streamed model text, and the log's own storage.
 */
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunState } from "../../src/sessions/object/store/store";
import { createAndStart, getSession, messages, newTestSession, sessionInit, unwrap, waitForStatus } from "../support/agent-session";
import { openSocket, openSse, streamResponse } from "../support/agent-stream";
import { deltaText, storedTypes, type Watch } from "../support/event-client";
import { storedEvents } from "../support/event-rows";
import { RECENT_WATCH_MS, STREAM_ALWAYS_ABOVE_TOKENS, streamAnswer } from "../../src/sessions/object/loop/steps/model-step";

const text = (t: string) => ({ type: "text", text: t });
const toolUse = (id: string, name = "get_time", input: unknown = {}) => ({ type: "tool_use", id, name, input });
const GET_TIME = [{ type: "builtin" as const, name: "get_time" }];

/** The stored events of a two-step run (tool call, then text) started on an idle session. */
const TWO_STEP_RUN = ["status", "message", "message", "tool_call", "usage", "tool_result", "message", "message", "usage", "status"];

async function idleSession() {
  const t = newTestSession();
  unwrap(await t.stub.create(sessionInit(t, { tools: GET_TIME }), null));
  return t;
}

describe("a watcher of a session", () => {
  it.each(["sse", "websocket"] as const)("over %s sees a snapshot, then every event of a two-step run in order, then end", async (mode) => {
    const t = await idleSession();
    const watch = mode === "sse" ? await openSse(t) : await openSocket(t);
    await watch.untilType("snapshot");
    expect(watch.frames[0]).toMatchObject({ type: "snapshot", data: { status: "idle", last_event_id: 0, reset: false, messages: [] } });
    expect(watch.frames[0]!.id).toBeUndefined();

    await t.model.script({ reply: { content: [toolUse("toolu_1")] } }, { reply: { content: [text("it is noon")] } });
    unwrap(await t.stub.start("what time is it?"));
    await watch.untilClosed();

    expect(storedTypes(watch)).toEqual(TWO_STEP_RUN);
    expect(watch.types().at(-1)).toBe("end");
    expect(watch.frames.at(-1)!.data).toEqual({ status: "done", stop_reason: "end_turn", error: null });
    const ids = watch.stored().map((f) => f.id!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    const [first, , , call, , result] = watch.stored();
    expect(first!.data).toMatchObject({ status: "running" });
    expect(call!.data).toEqual({
      id: "toolu_1",
      name: "get_time",
      step: 1,
      input: {},
      status: "pending",
      output: null,
      is_error: false,
      decided_by: null,
      decided_at: null,
      decision: null,
    });
    expect(result!.data).toMatchObject({ id: "toolu_1", status: "done", is_error: false, output: expect.stringMatching(/^\d{4}-/) });
    if (mode === "sse") {
      // Every stored event carries its id on the wire; the snapshot the id it is current as of.
      expect(watch.sseIds[0]).toBe("0");
      watch.frames.forEach((frame, n) =>
        expect(watch.sseIds[n]).toBe(frame.id === undefined ? (n === 0 ? "0" : undefined) : String(frame.id)),
      );
    } else {
      expect(watch.closeCode).toBe(1000);
    }
  });

  it("gets the same frames on replay as it got live, and the log stores references, not copies", async () => {
    const t = await idleSession();
    const live = await openSse(t);
    await live.untilType("snapshot");
    await t.model.script({ reply: { content: [text("checking"), toolUse("toolu_2")] } }, { reply: { content: [text("done")] } });
    unwrap(await t.stub.start("go"));
    await live.untilClosed();

    const replayed = await openSse(t, { cursor: 0 });
    await replayed.untilClosed();
    expect(replayed.stored()).toEqual(live.stored());
    expect(replayed.types().at(-1)).toBe("end");

    const rows = await runInDurableObject(t.stub, (_i, state) => storedEvents(state.storage.sql));
    for (const row of rows) {
      const data = JSON.parse(String(row.data)) as unknown;
      if (row.type === "message") expect(data).toEqual(expect.any(Number)); // its seq
      if (row.type === "tool_call" || row.type === "tool_result") expect(data).toEqual([expect.any(String), expect.any(String)]); // id, status
    }
  });

  it("that reconnects after an event id gets every later event exactly once, in order, and no snapshot", async () => {
    const t = await idleSession();
    await t.model.script(
      { reply: { content: [toolUse("toolu_a")] } },
      { reply: { content: [toolUse("toolu_b")] }, stream: { event_delay_ms: 40 } },
      { reply: { content: [text("all done")] }, stream: { event_delay_ms: 40 } },
    );
    const first = await openSocket(t);
    unwrap(await t.stub.start("two lookups"));
    await first.until((w) => w.stored().some((f) => f.type === "tool_result"), "the first tool_result");
    first.stop();
    const cursor = first.lastId()!;

    // The run goes on while nobody watches; the second watcher resumes mid-run.
    await t.model.waitForRequests(2);
    const second = await openSse(t, { cursor });
    await second.untilClosed();
    expect(second.types()[0]).not.toBe("snapshot");

    const full = await openSse(t, { cursor: 0 });
    await full.untilClosed();
    const seen = [...first.stored().filter((f) => f.id! <= cursor), ...second.stored()];
    expect(seen.map((f) => f.id)).toEqual(full.stored().map((f) => f.id));
    expect(seen).toEqual(full.stored());
  });

  it("of an ended session: a snapshot and end without a cursor, the rest and end after an old cursor, 204 after the newest", async () => {
    const t = newTestSession();
    await t.model.script({ reply: { content: [text("hello")] } });
    await createAndStart(t, "hi");
    await waitForStatus(t, ["done"]);

    const fresh = await openSse(t);
    await fresh.untilClosed();
    expect(fresh.types()).toEqual(["snapshot", "end"]);
    const snapshot = fresh.frames[0]!.data as { last_event_id: number; messages: unknown[]; status: string };
    expect(snapshot).toMatchObject({ status: "done", has_earlier_messages: false });
    expect(snapshot.messages).toHaveLength(2);

    const behind = await openSse(t, { cursor: snapshot.last_event_id - 2 });
    await behind.untilClosed();
    expect(behind.types()).toEqual(["usage", "status", "end"]);

    for (const mode of ["sse", "websocket"] as const) {
      const response = await streamResponse(t, mode, { cursor: snapshot.last_event_id });
      expect(response.status).toBe(204);
    }
  });

  it("with a cursor the session never gave out gets a snapshot marked reset", async () => {
    const t = await idleSession();
    const watch = await openSse(t, { cursor: 999 });
    await watch.untilType("snapshot");
    expect(watch.frames[0]!.data).toMatchObject({ reset: true, last_event_id: 0 });
    watch.stop();
  });

  it("sees the newest messages in a snapshot, not the whole history", async () => {
    const t = newTestSession();
    unwrap(await t.stub.create(sessionInit(t), null));
    await runInDurableObject(t.stub, (_i, state) => {
      for (let n = 1; n <= 60; n++) {
        state.storage.sql.exec(
          "INSERT INTO messages (role, content, created_at) VALUES (?, ?, ?)",
          n % 2 ? "user" : "assistant",
          JSON.stringify([text(`m${n}`)]),
          new Date().toISOString(),
        );
      }
    });
    const watch = await openSse(t);
    await watch.untilType("snapshot");
    const data = watch.frames[0]!.data as { messages: { seq: number }[]; has_earlier_messages: boolean };
    expect(data.messages.map((m) => m.seq)).toEqual(Array.from({ length: 20 }, (_, n) => 41 + n));
    expect(data.has_earlier_messages).toBe(true);
    watch.stop();
  });
});

describe("streamed model text", () => {
  it("arrives as delta frames before the saved message, and joined equals its text", async () => {
    const t = await idleSession();
    const watch = await openSse(t);
    const answer = "The time in Tokyo is a quarter past noon, give or take a minute.";
    await t.model.script(
      { reply: { content: [text("Let me check."), toolUse("toolu_t")] }, stream: { chunk_chars: 3 } },
      { reply: { content: [text(answer)] }, stream: { chunk_chars: 5 } },
    );
    unwrap(await t.stub.start("time in Tokyo?"));
    await watch.untilClosed();

    const assistant = watch.frames.filter((f) => f.type === "message" && (f.data as { role: string }).role === "assistant");
    expect(assistant).toHaveLength(2);
    for (const saved of assistant) {
      const at = watch.frames.indexOf(saved);
      const previous = watch.frames.slice(0, at);
      const since = previous.slice(previous.map((f) => f.type).lastIndexOf("message") + 1);
      const deltas = since.filter((f) => f.type === "delta");
      expect(deltas.length).toBeGreaterThan(1);
      const content = (saved.data as { content: { type: string; text?: string }[] }).content;
      const expected = new Map(content.flatMap((block, index) => (block.type === "text" ? [[index, block.text!] as const] : [])));
      expect(deltaText(deltas)).toEqual(expected);
      for (const delta of deltas) expect(delta.id).toBeUndefined();
    }
    // Deltas are never stored, so a replay has none.
    const replay = await openSse(t, { cursor: 0 });
    await replay.untilClosed();
    expect(replay.types()).not.toContain("delta");
  });

  it("is asked for only while somebody watches: unwatched calls take the whole answer, and a watcher who comes mid-answer gets it whole", async () => {
    const t = await idleSession();
    await t.model.script(
      { reply: { content: [text("nobody saw this being written"), toolUse("toolu_u")] } },
      { reply: { content: [text("written slowly while a watcher came")] }, delay_ms: 400 },
    );
    unwrap(await t.stub.start("go"));
    // The second call is under way with nobody watching; a watcher comes while it is written.
    await t.model.waitForRequests(2);
    const watch = await openSse(t);
    await watch.until(
      (w) => w.frames.some((f) => f.type === "message" && JSON.stringify(f.data).includes("written slowly")),
      "the answer saved",
    );
    expect(watch.frames.filter((f) => f.type === "delta")).toEqual([]);
    expect(await waitForStatus(t, ["done"])).toMatchObject({ status: "done" });
    watch.stop();
    expect((await t.model.requests()).map((r) => (r.body as { stream?: boolean }).stream)).toEqual([false, false]);
    // Watched from a call's start, the answer is streamed: the tests above and below.
  });

  it("is asked for unwatched for a chat and a long answer, and for a session watched a moment ago", () => {
    const watchedAgo = (agoMs: number) => ({ watchedWithin: (ms: number) => agoMs < ms });
    const plain = { metadata: null };
    expect(streamAnswer(watchedAgo(Infinity), plain, 4096)).toBe(false);
    expect(streamAnswer(watchedAgo(RECENT_WATCH_MS - 1), plain, 4096)).toBe(true);
    expect(streamAnswer(watchedAgo(Infinity), { metadata: { chat_id: "c1" } }, 4096)).toBe(true);
    expect(streamAnswer(watchedAgo(Infinity), plain, STREAM_ALWAYS_ABOVE_TOKENS + 1)).toBe(true);
  });

  it("broken in the middle saves nothing partial, and the retry's text starts over at offset 0", async () => {
    const t = await idleSession();
    const watch = await openSse(t);
    await t.model.script(
      { reply: { content: [text("a partial answer that breaks")] }, stream: { chunk_chars: 4, break_after: 6 } },
      { reply: { content: [text("the whole answer")] } },
    );
    unwrap(await t.stub.start("go"));
    await watch.untilClosed();
    const session = await getSession(t);
    expect(session).toMatchObject({ status: "done", usage: { steps: 1, input_tokens: 10, output_tokens: 5 } });
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("go")], [text("the whole answer")]]);
    expect(JSON.stringify(watch.stored())).not.toContain("partial");

    const deltas = watch.frames.filter((f) => f.type === "delta").map((f) => f.data as { text: string; offset: number });
    expect(deltas.some((d) => d.text === "a pa")).toBe(true);
    const restart = deltas.findIndex((d, n) => n > 0 && d.offset === 0);
    expect(restart).toBeGreaterThan(0);
    // The broken attempt's draft is dropped before the retry writes: one reset, between the two attempts' deltas.
    const kinds = watch.frames.map((f) => f.type).filter((type) => type === "delta" || type === "delta_reset");
    expect(kinds.filter((type) => type === "delta_reset")).toHaveLength(1);
    expect(kinds.indexOf("delta_reset")).toBe(restart);
    expect(watch.frames.find((f) => f.type === "delta_reset")!.data).toEqual({ indices: [0] });
    expect(deltaText(watch.frames).get(0)).toBe("the whole answer");
    expect((await t.model.requests()).map((r) => (r.body as { stream?: boolean }).stream)).toEqual([true, true]);
  });

  it("of a unit whose generation moved on is not sent, even while its call goes on", async () => {
    const t = await idleSession();
    const watch = await openSse(t);
    await t.model.script(
      { reply: { content: [text("x".repeat(120))] }, stream: { chunk_chars: 1, event_delay_ms: 15 } },
      { reply: { content: [text("fresh answer")] } },
    );
    unwrap(await t.stub.start("go"));
    await watch.until((w) => w.frames.filter((f) => f.type === "delta").length >= 3, "a few deltas");
    // A cancel and a new start happened elsewhere (say, before a restart): the call in flight
    // was not aborted and keeps streaming, but its unit is stale.
    const bumpedAt = await runInDurableObject(t.stub, async (_instance, state) => {
      const run = state.storage.kv.get<RunState>("run")!;
      state.storage.kv.put("run", { ...run, generation: run.generation + 2 });
      return Date.now();
    });
    await watch.untilClosed(15_000);
    const late = watch.frames.filter((f) => f.type === "delta" && Date.parse(f.created_at) > bumpedAt + 5);
    expect(late.map((f) => (f.data as { text: string }).text).join("")).not.toContain("x");
    expect((await messages(t)).map((m) => m.content)).toEqual([[text("go")], [text("fresh answer")]]);
  });

  it("stops at once on a pause: no delta follows the paused status, and the call is cut off", async () => {
    const t = await idleSession();
    const watch = await openSocket(t);
    await t.model.script({ reply: { content: [text("x".repeat(400))] }, stream: { chunk_chars: 1, event_delay_ms: 20 } });
    unwrap(await t.stub.start("write a lot"));
    await watch.until((w) => w.frames.filter((f) => f.type === "delta").length >= 3, "a few deltas");
    unwrap(await t.stub.pause());
    await watch.until(
      (w) => w.stored().some((f) => f.type === "status" && (f.data as { status: string }).status === "paused"),
      "the paused status",
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const paused = watch.frames.findIndex((f) => f.type === "status" && (f.data as { status: string }).status === "paused");
    expect(watch.frames.slice(paused).filter((f) => f.type === "delta")).toEqual([]);
    const [request] = await t.model.requests();
    expect(request!.disconnected_at).toBeTypeOf("number");
    expect(await messages(t)).toHaveLength(1);
    watch.stop();
  });
});
