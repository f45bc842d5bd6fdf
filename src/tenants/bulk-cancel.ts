/**
 * Cancels many sessions through their session objects, a few at a time. One session object failing (an RPC
 * error, or a session already stopped) must not stop the others; only real cancellations count.
 */
import { sessionStub } from "../objects";
import { describeError, log } from "../log";
import { eachSession } from "./each-session";

export type CancelOne = (sessionId: string) => Promise<{ ok: boolean }>;

export function sessionCanceller(env: Cloudflare.Env, tenantId: string): CancelOne {
  return async (sessionId) => {
    return sessionStub(env, tenantId, sessionId).cancel();
  };
}

/**
 * Returns how many were cancelled. `ok: false` (e.g. "conflict": it had already stopped) and
 * thrown errors are not counted; errors are logged without failing the batch.
 */
export async function cancelEach(sessionIds: readonly string[], cancelOne: CancelOne): Promise<number> {
  let cancelled = 0;
  await eachSession(sessionIds, async (sessionId) => {
    try {
      if ((await cancelOne(sessionId)).ok) cancelled += 1;
    } catch (error) {
      log("error", "session_cancel_failed", { session_id: sessionId, error: describeError(error) });
    }
  });
  return cancelled;
}
