/**
 * Every RPC method of the session object is either a control, which ends with the alarm synced (and the
 * report owed sent) whatever it answers, or a read of a session that must exist. The prototype is
 * enumerated, so a method added without being classified here fails, and each control is
 * called on a path that answers early, where a control without the wrapper would skip the sync.
 */
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionObject } from "../../src/sessions/object/session-object";
import { newTestSession, sessionInit, type TestSession } from "../support/agent-session";

afterEach(() => vi.restoreAllMocks());

type Method = (this: SessionObject, ...args: never[]) => Promise<unknown>;

/** Each control with arguments that make it answer early on an idle session (`create`: it exists). */
const CONTROLS: Record<string, (t: TestSession) => unknown[]> = {
  create: (t) => [sessionInit(t), null],
  createFork: (t) => [sessionInit(t), { messages: [], toolCalls: [], images: [] }, null],
  createChild: (t) => [{ ...sessionInit(t), parent: { session_id: "ses_parent", tool_call_id: "toolu_x" } }, "a task"],
  childReport: () => [
    {
      tool_call_id: "toolu_missing",
      session_id: "ses_child",
      status: "done",
      stop_reason: "end_turn",
      revision: 3,
      usage: { steps: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 },
      result: null,
    },
  ],
  treeTake: () => [{ kind: "neither" }],
  start: () => [[{ type: "image", source: { type: "url", url: "not a url" } }]],
  enqueue: () => ["more"],
  interrupt: () => ["instead"],
  cancel: () => [],
  pause: () => [],
  resume: () => [],
  slotGranted: () => [],
  setLimits: () => [{ max_tokens_per_session: 1000 }],
  budgetRaised: () => [null],
  approve: () => ["toolu_missing"],
  deny: () => ["toolu_missing", null],
  submitToolOutput: () => ["toolu_missing", "out", false],
  erase: () => [],
  eraseIfExpired: () => [0],
  closeStreams: () => [{ all: true }, "credentials"],
  fetch: () => [new Request("https://agent/events")],
  alarm: () => [],
};

/** Reads: they change nothing, and answer `session_not_found` for a session that does not exist. */
const READS: Record<string, unknown[]> = {
  get: [],
  requestOutcome: ["key-1"],
  listMessages: [0, 10],
  listToolCalls: [],
  listSteps: [0, 10],
  openStreamIds: [],
  forkCopy: [null],
  parentReport: [],
  // Changes the isolate's copy of the tool policy, not storage.
  policyChanged: [1],
};

/** Handlers of the runtime's that change no state: a closed or messaged socket. */
const INERT = ["webSocketMessage", "webSocketClose"];

/**
 * A deleted tenant's calls on the object's storage as a whole, whatever the session's state:
 * `purge` empties it and `footprint` counts it (test/api/lifecycle/tenant-deletion.test.ts).
 */
const WHOLE_STORAGE = ["purge", "footprint"];

const methods = Object.getOwnPropertyNames(SessionObject.prototype).filter((name) => name !== "constructor");

describe("the session object's RPC methods", () => {
  it("are each classified as a control, a read, an inert handler or a whole-storage call", () => {
    const known = [...Object.keys(CONTROLS), ...Object.keys(READS), ...INERT, ...WHOLE_STORAGE];
    expect(methods.filter((name) => !known.includes(name))).toEqual([]);
    expect(known.filter((name) => !methods.includes(name))).toEqual([]);
  });

  it.each(Object.keys(CONTROLS))("%s syncs the alarm at its end, even when it answers early", async (name) => {
    const t = newTestSession();
    await t.stub.create(sessionInit(t), null);
    const synced = await runInDurableObject(t.stub, async (instance: SessionObject, state) => {
      let reads = 0;
      const getAlarm = state.storage.getAlarm.bind(state.storage);
      vi.spyOn(state.storage, "getAlarm").mockImplementation((options) => {
        reads++;
        return getAlarm(options);
      });
      const method = (SessionObject.prototype as unknown as Record<string, Method>)[name]!;
      await method.apply(instance, CONTROLS[name]!(t) as never[]).catch(() => {});
      return reads;
    });
    expect(synced).toBeGreaterThan(0);
  });

  it.each(Object.keys(READS))("%s reads only a session that exists", async (name) => {
    const t = newTestSession();
    const answer = await runInDurableObject(t.stub, (instance: SessionObject) =>
      (SessionObject.prototype as unknown as Record<string, Method>)[name]!.apply(instance, READS[name] as never[]),
    );
    expect(answer).toEqual({ ok: false, reason: "session_not_found" });
  });
});
