/** A message posted while a run is going, through the public API: reject, enqueue and interrupt. */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CANCELLED_BEFORE_RESULT } from "../../../src/sessions/object/session-object";
import type { Message, Session } from "../../../src/session-config/types";
import { MAX_QUEUED_MESSAGES } from "../../../src/limits";
import { sessionStub } from "../../../src/objects";
import { readProblem } from "../../support/api";
import { mockHook, mockModel, uniqueKey } from "../../support/mock-client";
import { type Caller, caller, createSession, getJson, messagesOf, post, text, toolCallsOf, toolUse, waitForStatus } from "./helpers";
import { storedEvents } from "../../support/event-rows";

const textsOf = (messages: Message[]) =>
  messages.map(
    (m) =>
      `${m.role}:${m.content.map((b) => (b.type === "text" ? b.text : b.type === "tool_result" ? `result(${b.content})` : b.type === "tool_use" ? `use(${b.id})` : "image")).join("+")}`,
  );

async function postMessage(who: Caller, id: string, input: string, ifRunning?: string): Promise<Response> {
  return post(who, `/v1/sessions/${id}/messages`, { input, ...(ifRunning ? { if_running: ifRunning } : {}) });
}

/** Every status the session's event log recorded, in order. */
async function statusesSeen(who: Caller, id: string): Promise<string[]> {
  return runInDurableObject(sessionStub(env, who.tenantId, id), (_instance, state) =>
    storedEvents(state.storage.sql)
      .filter((row) => row.type === "status")
      .map((row) => (JSON.parse(String(row.data)) as { status: string }).status),
  );
}

describe("if_running", () => {
  it("rejects by default with 409, and refuses a value it does not know with 400", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "first", model: model.key });
    await model.waitForRequests(1);
    expect((await postMessage(who, session.id, "second")).status).toBe(409);
    expect((await postMessage(who, session.id, "second", "reject")).status).toBe(409);
    const bad = await postMessage(who, session.id, "second", "later");
    expect(bad.status).toBe(400);
    expect((await readProblem(bad)).errors?.[0]?.path).toBe("body.if_running");
    expect((await post(who, `/v1/sessions/${session.id}/cancel`)).status).toBe(200);
  });

  it("enqueue: each message starts its own run as soon as the one before ends, in order", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { delay_ms: 700, reply: { content: [text("first answer")] } },
      { reply: { content: [text("answer to A")] } },
      { reply: { content: [text("answer to B")] } },
    );
    const session = await createSession(who, { input: "first", model: model.key });
    await model.waitForRequests(1);

    const a = await postMessage(who, session.id, "A", "enqueue");
    expect(a.status).toBe(202);
    expect((await a.json()) as Session).toMatchObject({ status: "running", queued_messages: 1 });
    const b = await postMessage(who, session.id, "B", "enqueue");
    expect(((await b.json()) as Session).queued_messages).toBe(2);
    // Queued messages are not history yet.
    expect(await messagesOf(who, session.id)).toHaveLength(1);

    await model.waitForRequests(3);
    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn", queued_messages: 0, usage: { steps: 3 } });
    expect(textsOf(await messagesOf(who, session.id))).toEqual([
      "user:first",
      "assistant:first answer",
      "user:A",
      "assistant:answer to A",
      "user:B",
      "assistant:answer to B",
    ]);
    // Each run was asked with its own message last.
    const lastUserText = (await model.requests()).map((r) => {
      const turns = (r.body as { messages: { role: string; content: { text?: string }[] }[] }).messages;
      return turns.at(-1)!.content.at(-1)!.text;
    });
    expect(lastUserText).toEqual(["first", "A", "B"]);
  });

  it("enqueue then cancel: the queue is dropped and its messages never run", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "first", model: model.key });
    await model.waitForRequests(1);
    expect((await postMessage(who, session.id, "queued", "enqueue")).status).toBe(202);
    const cancelled = await post(who, `/v1/sessions/${session.id}/cancel`);
    expect((await cancelled.json()) as Session).toMatchObject({ status: "cancelled", queued_messages: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await model.requests()).toHaveLength(1);
    expect(textsOf(await messagesOf(who, session.id))).toEqual(["user:first"]);
    expect((await getJson<Session>(who, `/v1/sessions/${session.id}`)).status).toBe("cancelled");
  });

  it("enqueue refuses a message past the queue's size with 409", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script({ hang: true });
    const session = await createSession(who, { input: "first", model: model.key });
    for (let i = 0; i < MAX_QUEUED_MESSAGES; i++) expect((await postMessage(who, session.id, `m${i}`, "enqueue")).status).toBe(202);
    const full = await postMessage(who, session.id, "one too many", "enqueue");
    expect(full.status).toBe(409);
    expect((await readProblem(full)).detail).toContain(String(MAX_QUEUED_MESSAGES));
    await post(who, `/v1/sessions/${session.id}/cancel`);
  });

  it("enqueue and interrupt on a session with no run going start a run at once", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const session = await createSession(who, { model: model.key });
    const started = await postMessage(who, session.id, "go", "enqueue");
    expect(started.status).toBe(202);
    expect(((await started.json()) as Session).queued_messages).toBe(0);
    await waitForStatus(who, session.id, ["done"]);
    expect((await postMessage(who, session.id, "again", "interrupt")).status).toBe(202);
    await waitForStatus(who, session.id, ["done"]);
    expect(textsOf(await messagesOf(who, session.id))).toEqual(["user:go", "assistant:ok", "user:again", "assistant:ok"]);
  });

  it("interrupt during a model call: the call is aborted, its answer never saved, and a new run starts without a cancel", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    await model.script(
      { delay_ms: 800, reply: { content: [text("the answer nobody waits for")] } },
      { reply: { content: [text("about the new question")] } },
    );
    const session = await createSession(who, { input: "old question", model: model.key });
    await model.waitForRequests(1);
    const res = await postMessage(who, session.id, "new question", "interrupt");
    expect(res.status).toBe(202);
    expect(((await res.json()) as Session).status).toBe("running");

    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done).toMatchObject({ status: "done", stop_reason: "end_turn", usage: { steps: 1 } });
    const [cut] = await model.requests();
    expect(cut!.disconnected_at, "the interrupted call was aborted").toBeTypeOf("number");
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(textsOf(await messagesOf(who, session.id))).toEqual([
      "user:old question",
      "user:new question",
      "assistant:about the new question",
    ]);
    expect(await statusesSeen(who, session.id)).not.toContain("cancelled");
  });

  it("interrupt during an at-most-once tool call: the call is closed, never sent again, and the model is told", async () => {
    const who = await caller();
    const model = mockModel(uniqueKey("model"));
    const hook = mockHook(uniqueKey("charge"));
    await hook.script({ hold: true, then: { status: 200, body: { output: "charged" } } });
    await model.script(
      { reply: { content: [toolUse("toolu_charge", "charge", { amount: 5 })] } },
      { reply: { content: [text("stopped; what now?")] } },
    );
    const session = await createSession(who, {
      input: "charge the card",
      model: model.key,
      tools: [
        { type: "webhook", name: "charge", description: "charges", input_schema: { type: "object" }, url: hook.url, at_most_once: true },
      ],
    });
    await hook.waitForRequests(1);
    expect((await postMessage(who, session.id, "stop, do not charge", "interrupt")).status).toBe(202);

    const done = await waitForStatus(who, session.id, ["done", "failed"]);
    expect(done.status).toBe("done");
    expect(await hook.release()).toBe(0); // the held call was cut off by the interrupt
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calls = await hook.requests();
    expect(calls).toHaveLength(1);
    expect(calls[0]!.disconnected_at).toBeTypeOf("number");
    expect(await toolCallsOf(who, session.id)).toEqual([
      expect.objectContaining({ id: "toolu_charge", status: "error", output: CANCELLED_BEFORE_RESULT }),
    ]);
    expect(textsOf(await messagesOf(who, session.id))).toEqual([
      "user:charge the card",
      "assistant:use(toolu_charge)",
      `user:result(${CANCELLED_BEFORE_RESULT})`,
      "user:stop, do not charge",
      "assistant:stopped; what now?",
    ]);
    expect(await statusesSeen(who, session.id)).not.toContain("cancelled");
  });
});
