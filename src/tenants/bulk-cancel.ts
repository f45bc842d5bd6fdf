/**
 * Cancels many sessions through their Agents, a few at a time. One Agent failing (an RPC
 * error, or a session already stopped) must not stop the others; only real cancellations count.
 */
import { agentStub } from "../objects";

/** Agents asked at once: enough to be quick, few enough not to flood the runtime. */
export const CANCEL_CONCURRENCY = 8;

export type CancelOne = (sessionId: string) => Promise<{ ok: boolean }>;

export function agentCanceller(env: Cloudflare.Env, tenantId: string): CancelOne {
  return async (sessionId) => {
    return agentStub(env, tenantId, sessionId).cancel();
  };
}

/**
 * Returns how many were cancelled. `ok: false` (e.g. "conflict": it had already stopped) and
 * thrown errors are not counted; errors are logged without failing the batch.
 */
export async function cancelEach(sessionIds: readonly string[], cancelOne: CancelOne): Promise<number> {
  let cancelled = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < sessionIds.length) {
      const sessionId = sessionIds[next++] as string;
      try {
        if ((await cancelOne(sessionId)).ok) cancelled += 1;
      } catch (error) {
        console.error("cancelling a session failed", sessionId, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CANCEL_CONCURRENCY, sessionIds.length) }, worker));
  return cancelled;
}
