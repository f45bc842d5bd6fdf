/**
 * A tenant's share of the isolate for starting sub-agent sessions. Starting one makes a new
 * session object (its storage, its tables) and plans its settings; a self-recursive agent's ten
 * running sessions each start ten children at once, and the hundred starts queued on the thread
 * kept another tenant's requests waiting 11 s. So one tenant has at most
 * `MAX_CHILD_STARTS_IN_FLIGHT` starts going in an isolate, and its next start waits until as long
 * as its last one took has passed since that one ended (`CHILD_START_SHARE`): its starts hold at
 * most half of the isolate's time, and what else the thread has to do goes in between.
 *
 * Kept per isolate, in plain numbers: each waiting object polls on its own timer, never awaits a
 * promise of another object's request.
 */
import { CHILD_START_POLL_MS, CHILD_START_SHARE, MAX_CHILD_STARTS_IN_FLIGHT } from "../limits";

/** A tenant's last start in this isolate (epoch ms). */
export interface LastStart {
  endedAt: number;
  tookMs: number;
}

/**
 * How long (ms) the tenant's next start waits after its last: the gap that keeps its starts to
 * `share` of the isolate's time. Pure.
 */
export function startGapMs(last: LastStart | undefined, now: number, share = CHILD_START_SHARE): number {
  if (!last) return 0;
  const gap = (last.tookMs * (1 - share)) / share;
  return Math.max(0, last.endedAt + gap - now);
}

const inFlight = new Map<string, number>();
const lastStarts = new Map<string, LastStart>();

/** Runs `start` in the tenant's turn: fewer than `MAX_CHILD_STARTS_IN_FLIGHT` going, and its share's gap passed. */
export async function inStartTurn<T>(tenantId: string, start: () => Promise<T>): Promise<T> {
  for (;;) {
    const gap = startGapMs(lastStarts.get(tenantId), Date.now());
    if ((inFlight.get(tenantId) ?? 0) < MAX_CHILD_STARTS_IN_FLIGHT && gap === 0) break;
    await new Promise((resolve) => setTimeout(resolve, Math.max(gap, CHILD_START_POLL_MS)));
  }
  inFlight.set(tenantId, (inFlight.get(tenantId) ?? 0) + 1);
  const startedAt = Date.now();
  try {
    return await start();
  } finally {
    const endedAt = Date.now();
    // Tenants whose gap has passed are forgotten, so the map holds only tenants starting lately.
    for (const [id, last] of lastStarts) if (startGapMs(last, endedAt) === 0) lastStarts.delete(id);
    lastStarts.set(tenantId, { endedAt, tookMs: endedAt - startedAt });
    const left = (inFlight.get(tenantId) ?? 1) - 1;
    if (left > 0) inFlight.set(tenantId, left);
    else inFlight.delete(tenantId);
  }
}
