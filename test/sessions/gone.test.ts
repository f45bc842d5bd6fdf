/**
 * The engine's one existence check (engine/gone.ts): code after an await goes on only while the
 * session exists, and the one place that catches `SessionGone` answers it; any other fault goes on up.
 */
import { describe, expect, it } from "vitest";
import { isLive, requireLive, SessionGone, stillLive, unlessGone, whileLive } from "../../src/sessions/object/engine/gone";
import { newTestSession, sessionInit } from "../support/agent-session";

function storage(exists: boolean) {
  return { exists: () => exists };
}

describe("the session's existence check", () => {
  it("raises SessionGone only for storage that holds no session", () => {
    expect(isLive(storage(true))).toBe(true);
    expect(() => requireLive(storage(true))).not.toThrow();
    expect(() => requireLive(storage(false))).toThrow(SessionGone);
  });

  it("checks again after an await: an erase that came in meanwhile raises", async () => {
    const store = { live: true, exists: () => store.live };
    const pending = new Promise<number>((resolve) => setTimeout(() => resolve(7), 1));
    store.live = false;
    await expect(stillLive(store, pending)).rejects.toBeInstanceOf(SessionGone);
    store.live = true;
    expect(await stillLive(store, Promise.resolve(7))).toBe(7);
  });

  it("runs a body only while the session exists", () => {
    let ran = false;
    expect(() => whileLive(storage(false), () => (ran = true))()).toThrow(SessionGone);
    expect(ran).toBe(false);
    expect(whileLive(storage(true), () => 3)()).toBe(3);
  });

  it("answers SessionGone as told, and lets any other fault through", async () => {
    expect(
      await unlessGone(
        () => Promise.reject(new SessionGone()),
        () => "gone",
      ),
    ).toBe("gone");
    expect(
      await unlessGone(
        () => "kept",
        () => "gone",
      ),
    ).toBe("kept");
    await expect(
      unlessGone(
        () => Promise.reject(new Error("a bug")),
        () => "gone",
      ),
    ).rejects.toThrow("a bug");
  });

  it("answers session_not_found for a control on a session erased before it", async () => {
    const t = newTestSession();
    await t.stub.create(sessionInit(t), null);
    expect(await t.stub.erase()).toEqual({ ok: true, value: null });
    expect(await t.stub.cancel()).toEqual({ ok: false, reason: "session_not_found" });
    expect(await t.stub.childReport({} as never)).toEqual({ ok: false, reason: "session_not_found" });
    expect(await t.stub.get()).toEqual({ ok: false, reason: "session_not_found" });
  });
});
