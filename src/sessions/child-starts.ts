/**
 * A tenant's share of the isolate for starting sub-agent sessions. Starting one makes a new
 * session object (its storage, its tables) and plans its settings; a self-recursive agent's ten
 * running sessions each start ten children at once, and the hundred starts queued on the thread
 * kept another tenant's requests waiting 11 s. So one tenant has at most
 * `MAX_CHILD_STARTS_IN_FLIGHT` starts going in an isolate; the others wait their turn, and what
 * else the thread has to do goes in between.
 *
 * Kept per isolate, in plain numbers: each waiting object polls on its own timer, never awaits a
 * promise of another object's request.
 */
import { CHILD_START_POLL_MS, MAX_CHILD_STARTS_IN_FLIGHT } from "../limits";

const inFlight = new Map<string, number>();

/** Runs `start` once the tenant has fewer than `MAX_CHILD_STARTS_IN_FLIGHT` starts going in this isolate. */
export async function inStartTurn<T>(tenantId: string, start: () => Promise<T>): Promise<T> {
  while ((inFlight.get(tenantId) ?? 0) >= MAX_CHILD_STARTS_IN_FLIGHT) await new Promise((resolve) => setTimeout(resolve, CHILD_START_POLL_MS));
  inFlight.set(tenantId, (inFlight.get(tenantId) ?? 0) + 1);
  try {
    return await start();
  } finally {
    const left = (inFlight.get(tenantId) ?? 1) - 1;
    if (left > 0) inFlight.set(tenantId, left);
    else inFlight.delete(tenantId);
  }
}
