/**
 * A child session's side: the report its parent is owed at each of its status changes, sent
 * from `reconcile` until the parent acknowledges it (a failure is tried again from the alarm), so
 * the parent hears of the child's end even across crashes of either.
 */
import { log } from "../../../log";
import { sessionStub } from "../../../objects";
import type { FamilyHost } from "./host";
import type { SessionRpc } from "../rpc";
import { sumUsage, type ChildReport, childResult, finalText } from "./report";
import { isLive } from "../engine/gone";

/** A failed report to the parent is tried again after this long. */
export const PARENT_RETRY_MS = 5_000;

/** This session's state as its parent's tool call sees it; null for a session no call started. */
export function reportForParent(engine: FamilyHost): ChildReport | null {
  const { store } = engine;
  const session = store.requireSession();
  if (!session.parent) return null;
  const run = store.run();
  const result = childResult(
    {
      status: run.status,
      stop_reason: run.stop_reason,
      error: run.error,
      output: run.status === "done" ? store.runOutput() : null,
      hasSchema: (store.runOutputSchema() ?? null) !== null,
    },
    finalText(store.latestMessages(4).reverse()),
  );
  return {
    tool_call_id: session.parent.tool_call_id,
    session_id: session.id,
    status: run.status,
    stop_reason: run.stop_reason,
    revision: run.revision,
    usage: sumUsage(run.usage, store.descendantUsage()),
    result,
  };
}

/** When a failed report to the parent is tried again, per session object (memory only: after a restart it is due at once). */
const retryAt = new WeakMap<FamilyHost, number>();

/** When the alarm must next try the parent's report; null when none is owed. */
export function parentDueAt(engine: FamilyHost, now: number): number | null {
  return parentOwed(engine) ? Math.max(now, retryAt.get(engine) ?? 0) : null;
}

/** Whether the parent is owed a report: a status change it has not acknowledged. */
export function parentOwed(engine: FamilyHost): boolean {
  const session = engine.store.session();
  return !!session?.parent && engine.store.parentToldRevision() < engine.store.run().urgent_revision;
}

/**
 * Tells the parent of this session's state when it is owed. A parent that is gone (erased) is
 * told nothing more. Returns false when the parent could not be reached.
 */
export async function tellParent(engine: FamilyHost): Promise<boolean> {
  if (!parentOwed(engine)) return true;
  const report = reportForParent(engine);
  const session = engine.requireSession();
  if (!report || !session.parent) return true;
  try {
    const parent: SessionRpc = sessionStub(engine.env, session.tenant_id, session.parent.session_id);
    const answer = await parent.childReport(report);
    if (!answer.ok && answer.reason !== "session_not_found") throw new Error(`the parent answered ${answer.reason}`);
  } catch (error) {
    retryAt.set(engine, Date.now() + PARENT_RETRY_MS);
    log("warn", "parent_report_failed", {
      tenant_id: session.tenant_id,
      session_id: session.id,
      parent_id: session.parent.session_id,
      error: String(error),
    });
    return false;
  }
  if (!isLive(engine.store)) return true;
  engine.store.putParentToldRevision(Math.max(engine.store.parentToldRevision(), report.revision));
  return true;
}
