/**
 * An erase that lands while another call waits for the tenant index's answer about a run slot:
 * the waiting call answers (the session was cancelled, or is gone) and never throws on storage
 * that no longer exists, and the slot it was granted is given back.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { tenantIndexStub } from "../../src/objects";
import type { SessionResult, Session } from "../../src/session-config/types";
import { createAndStart, newTestSession, unwrap, waitForStatus } from "../support/agent-session";

/** Sessions raced per test: the interleaving depends on when each side's awaits return. */
const RACES = 6;

async function pausedSession(): Promise<ReturnType<typeof newTestSession>> {
  const t = newTestSession();
  await t.model.script({ delay_ms: 5_000, reply: { content: [{ type: "text", text: "late" }] } });
  await createAndStart(t, "go");
  unwrap((await t.stub.pause()) as SessionResult<Session>);
  await waitForStatus(t, ["paused"]);
  return t;
}

describe("an erase during a slot claim", () => {
  it("leaves a resume that waited for its slot an answer, never an error, and frees the slot it got", async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < RACES; i++) {
      const t = await pausedSession();
      const [resumed, erased] = await Promise.allSettled([t.stub.resume(), t.stub.erase()]);
      expect(erased).toMatchObject({ status: "fulfilled", value: { ok: true } });
      // Never a thrown error: the resume came first, or it learns the session was cancelled or is gone.
      expect(resumed.status).toBe("fulfilled");
      const value = (resumed as PromiseFulfilledResult<SessionResult<Session>>).value;
      outcomes.push(value.ok ? "resumed" : value.reason);
      if (value.ok) continue;
      expect(["wrong_status", "session_not_found"]).toContain(value.reason);
      // The slot granted to the resume that lost is given back at once.
      const reserved = await runInDurableObject(tenantIndexStub(env, t.tenantId), (_instance, state) =>
        state.storage.sql.exec("SELECT session_id FROM run_reservations WHERE session_id = ?", t.sessionId).toArray(),
      );
      expect(reserved).toEqual([]);
    }
    // The race was run: at least one resume answered after the erase had begun.
    expect(outcomes.some((outcome) => outcome !== "resumed")).toBe(true);
  });
});
