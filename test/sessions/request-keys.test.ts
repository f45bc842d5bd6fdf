/**
 * Keyed messages: a message sent again under the key it was applied with is not applied again,
 * whichever way it went in (a start, the queue, an interrupt); the session object says what it did.
 */
import { describe, expect, it } from "vitest";
import type { SessionResult, Session } from "../../src/session-config/types";
import { checkRequestKey, MAX_REQUEST_KEYS } from "../../src/sessions/object/request-keys";
import { createAndStart, getSession, messages, newTestSession, sessionInit, unwrap, waitForStatus } from "../support/agent-session";

const userTexts = async (t: ReturnType<typeof newTestSession>) =>
  (await messages(t)).filter((m) => m.role === "user").map((m) => (m.content[0] as { text: string }).text);

describe("a keyed message", () => {
  it("starts a run once, and a repeat answers the session as it stands", async () => {
    const t = newTestSession();
    unwrap((await t.stub.create(sessionInit(t), null)) as SessionResult<Session>);
    expect(unwrap((await t.stub.start("first", null, {}, "k-1")) as SessionResult<Session>).status).toBe("running");
    await waitForStatus(t, ["done"]);
    const again = unwrap((await t.stub.start("first", null, {}, "k-1")) as SessionResult<Session>);
    expect(again.status).toBe("done");
    expect(await userTexts(t)).toEqual(["first"]);
    expect(unwrap((await t.stub.requestOutcome("k-1")) as SessionResult<string | null>)).toBe("started");
    expect(unwrap((await t.stub.requestOutcome("k-2")) as SessionResult<string | null>)).toBeNull();
  });

  it("is queued once behind a run that is going, and interrupts once", async () => {
    const t = newTestSession();
    await t.model.script({ delay_ms: 1_000, reply: { content: [{ type: "text", text: "slow" }] } });
    await createAndStart(t, "go");
    unwrap((await t.stub.enqueue("queued", null, {}, "q-1")) as SessionResult<Session>);
    const repeat = unwrap((await t.stub.enqueue("queued", null, {}, "q-1")) as SessionResult<Session>);
    expect(repeat.queued_messages).toBe(1);
    unwrap((await t.stub.interrupt("now", null, {}, "i-1")) as SessionResult<Session>);
    unwrap((await t.stub.interrupt("now", null, {}, "i-1")) as SessionResult<Session>);
    await waitForStatus(t, ["done"]);
    expect(await userTexts(t)).toEqual(["go", "now", "queued"]);
    expect(unwrap((await t.stub.requestOutcome("q-1")) as SessionResult<string | null>)).toBe("enqueued");
    expect(unwrap((await t.stub.requestOutcome("i-1")) as SessionResult<string | null>)).toBe("interrupted");
    expect((await getSession(t)).queued_messages).toBe(0);
  });

  it("keeps the newest keys only, and refuses a key that is not a short string", async () => {
    const t = newTestSession();
    unwrap((await t.stub.create(sessionInit(t), null)) as SessionResult<Session>);
    for (let i = 0; i <= MAX_REQUEST_KEYS; i++) {
      unwrap((await t.stub.start(`m${i}`, null, {}, `k-${i}`)) as SessionResult<Session>);
      await waitForStatus(t, ["done"]);
    }
    expect(unwrap((await t.stub.requestOutcome("k-0")) as SessionResult<string | null>)).toBeNull();
    expect(unwrap((await t.stub.requestOutcome(`k-${MAX_REQUEST_KEYS}`)) as SessionResult<string | null>)).toBe("started");
    expect(checkRequestKey(null)).toBeNull();
    expect(() => checkRequestKey("")).toThrow(TypeError);
    expect(() => checkRequestKey("x".repeat(257))).toThrow(TypeError);
  }, 60_000);
});
