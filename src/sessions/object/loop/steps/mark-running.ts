/**
 * The `running` mark a call gets before its side effect, written by every step that starts
 * one (a tool call, an agent call) so a restart finds it; what the mark means for a repeat is
 * `markAtMostOnce`'s (tools/at-most-once.ts).
 */
import type { StepScope, UnitWriter } from "../../engine/unit-scope";

/**
 * Marks the call `running` (with `also`, in the same commit) and, when `durable`, makes the
 * mark durable before anything else happens; answers when the mark was made.
 */
export async function markRunning(scope: StepScope, callId: string, durable: boolean, also?: (w: UnitWriter) => void): Promise<string> {
  const markedAt = scope.nowIso();
  scope.commit((w) => {
    also?.(w);
    w.store.setToolCallStatus(callId, "running", markedAt);
  });
  if (durable) await scope.persist();
  return markedAt;
}
