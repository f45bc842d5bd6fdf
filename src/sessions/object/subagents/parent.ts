/**
 * A parent session's side: what it hears of its children (a child's report, or its own look at
 * a child from the alarm, so a lost report is not lost work), each child's end made its call's
 * result exactly once, and the children of a call that was closed without them (a cancel, an
 * interrupt) cancelled in turn.
 */
import { log } from "../../../log";
import { sessionStub } from "../../../objects";
import type { FamilyHost } from "./host";
import { openCallsState } from "../engine/tool-results";
import type { SessionRpc } from "../rpc";
import type { SubagentRow } from "../store/store";
import { FINAL_STATUSES, type SessionResult, WAITING_STATUSES } from "../../../session-config/types";
import type { ChildReport } from "./report";
import { isLive } from "../engine/gone";

/** While children run, the parent looks at each this often, in case a child's own report was lost. */
export const CHILD_POLL_MS = 30_000;
/** A failed cancel of a child is tried again after this long. */
export const CHILD_CANCEL_RETRY_MS = 5_000;

const OK: SessionResult<null> = { ok: true, value: null };

/**
 * Applies what a child reports: its state recorded (a `subagent` event when its status changed),
 * and at its end the call's result, given once: a call no longer running (answered, or closed by
 * a cancel) takes none. When the result lets the run go on, the run takes a run slot again
 * (`waiting_subagents` held none), or goes `queued` when none is free.
 */
export async function applyChildReport(engine: FamilyHost, report: ChildReport): Promise<SessionResult<null>> {
  const { store } = engine;
  const row = store.subagent(report.tool_call_id);
  // Not a child of this session (a fork carries no children): nothing to apply.
  if (!row || row.session_id !== report.session_id) return OK;
  engine.transaction(() => record(engine, row, report));
  const result = report.result;
  if (!result || store.toolCall(row.tool_call_id)?.status !== "running") return OK;
  const open = store.openToolCalls().map((c) => (c.id === row.tool_call_id ? { id: c.id, status: "done" as const } : c));
  const state = openCallsState(open, store.callsWaitingOnChildren());
  const needsSlot = (state === "runnable" || state === "complete") && WAITING_STATUSES.includes(store.run().status);
  // Given by another report (or closed by a cancel) while the index was asked.
  await engine.slots.goOn({
    needed: needsSlot,
    stands: () => (store.toolCall(row.tool_call_id)?.status === "running" ? null : "answered"),
    go: (runnable) =>
      engine.transaction(() => {
        const call = store.toolCall(row.tool_call_id)!;
        engine.finishCall(call, result.output, result.is_error);
        engine.emit("tool_result", store.toolCall(call.id));
        engine.continueRun(runnable);
      }),
  });
  return OK;
}

function record(engine: FamilyHost, row: SubagentRow, report: ChildReport): void {
  if (!engine.store.recordChildState(row.tool_call_id, report)) return;
  if (row.status !== report.status || row.stop_reason !== report.stop_reason) {
    engine.emit("subagent", {
      tool_call_id: row.tool_call_id,
      session_id: row.session_id,
      status: report.status,
      stop_reason: report.stop_reason,
    });
  }
}

/** Children whose call still waits for them: looked at from the alarm. */
export function watchedChildren(rows: readonly SubagentRow[], openCallIds: ReadonlySet<string>): SubagentRow[] {
  return rows.filter(
    (row) => row.started && openCallIds.has(row.tool_call_id) && (row.status === null || !FINAL_STATUSES.includes(row.status)),
  );
}

/**
 * Children that may still be going whose call was closed without them (a cancel, an interrupt, a
 * failed run): to be cancelled. A child not known to be started counts too: the start may have
 * happened just before a crash lost its answer (a cancel of a session that never was is answered
 * `session_not_found`, and that is the end of it).
 */
export function orphanedChildren(rows: readonly SubagentRow[], openCallIds: ReadonlySet<string>): SubagentRow[] {
  return rows.filter(
    (row) => !row.cancel_sent && !openCallIds.has(row.tool_call_id) && (row.status === null || !FINAL_STATUSES.includes(row.status)),
  );
}

/** A child the session started whose call no longer waits for it (`cancelOrphans` has work). */
export function hasOrphans(engine: FamilyHost): boolean {
  const rows = engine.store.subagents();
  return rows.length > 0 && orphanedChildren(rows, openCallIds(engine)).length > 0;
}

/** Children started whose call still waits for them and that have not ended: the ones a family's share is pushed to. */
export function liveChildren(engine: FamilyHost): SubagentRow[] {
  return watchedChildren(engine.store.subagents(), openCallIds(engine));
}

function openCallIds(engine: FamilyHost): Set<string> {
  return new Set(
    engine.store
      .openToolCalls()
      .filter((c) => c.status === "running")
      .map((c) => c.id),
  );
}

function childStub(engine: FamilyHost, sessionId: string): SessionRpc {
  return sessionStub(engine.env, engine.requireSession().tenant_id, sessionId);
}

/** Asks each child its call still waits for how it stands, and applies the answer as its report. */
export async function pollChildren(engine: FamilyHost): Promise<void> {
  for (const row of watchedChildren(engine.store.subagents(), openCallIds(engine))) {
    let report: ChildReport | null;
    try {
      const answer = await childStub(engine, row.session_id).parentReport();
      // A child that is gone (deleted on its own) ended for its parent.
      report = answer.ok ? answer.value : answer.reason === "session_not_found" ? goneChild(row) : null;
    } catch (error) {
      log("warn", "child_poll_failed", { session_id: engine.session()?.id, child_id: row.session_id, error: String(error) });
      continue;
    }
    if (!isLive(engine.store)) return;
    if (report) await applyChildReport(engine, report);
  }
}

function goneChild(row: SubagentRow): ChildReport {
  return {
    tool_call_id: row.tool_call_id,
    session_id: row.session_id,
    status: "cancelled",
    stop_reason: "cancelled",
    revision: Number.MAX_SAFE_INTEGER,
    usage: row.usage,
    result: { output: "the agent's session was deleted", is_error: true },
  };
}

/** When a failed cancel of a child is tried again, per session object (memory only: after a restart, every orphan is due at once). */
const cancelRetryAt = new WeakMap<FamilyHost, number>();

/**
 * Cancels the children whose call was closed without them; each once (`cancel_sent`), retried
 * while one fails. All at once: each child cancels its own in turn, so one after another a
 * cancel of a tree's root waited for every session of the tree (24 s for a few hundred).
 */
export async function cancelOrphans(engine: FamilyHost): Promise<boolean> {
  const rows = orphanedChildren(engine.store.subagents(), openCallIds(engine));
  const sent = await Promise.all(rows.map((row) => cancelOrphan(engine, row)));
  return sent.includes(true);
}

/** True when the cancel was sent and noted. */
async function cancelOrphan(engine: FamilyHost, row: SubagentRow): Promise<boolean> {
  try {
    const answer = await childStub(engine, row.session_id).cancel();
    if (!answer.ok && answer.reason !== "wrong_status" && answer.reason !== "session_not_found") throw new Error(answer.reason);
  } catch (error) {
    log("warn", "child_cancel_failed", { session_id: engine.session()?.id, child_id: row.session_id, error: String(error) });
    cancelRetryAt.set(engine, Date.now() + CHILD_CANCEL_RETRY_MS);
    return false;
  }
  // Erased while the child was asked: nothing left to note.
  if (!isLive(engine.store)) return false;
  engine.store.markCancelSent(row.tool_call_id);
  return true;
}

/** When the alarm must next look at the children: a cancel owed (now, or after a failure), or the next poll of running ones. */
export function childrenDueAt(engine: FamilyHost, now: number): number | null {
  const rows = engine.store.subagents();
  if (rows.length === 0) return null;
  const open = openCallIds(engine);
  if (orphanedChildren(rows, open).length > 0) return Math.max(now, cancelRetryAt.get(engine) ?? 0);
  // A running session wakes for its units anyway; one that waits looks at its children now and then.
  if (engine.store.run().status !== "running" && watchedChildren(rows, open).length > 0) return now + CHILD_POLL_MS;
  return null;
}
