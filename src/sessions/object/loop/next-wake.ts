/**
 * When the session object's alarm must next fire: the earliest of the next unit of a running session, a
 * queued session's next ask for a run slot, the renewal of a daily budget a run waits on, the next report owed to the tenant index, the
 * deadline of an open WebSocket (whose credential expires then), the next hand-off of owed
 * notifications, and the earliest approval deadline of a call waiting for one. Null: nothing is
 * due, and the alarm is removed, so an idle, waiting or finished session costs nothing. Pure.
 */
import { reportDueAt } from "../report/report-policy";
import type { RunState } from "../store/store";

/**
 * A queued session asks the tenant index for a slot this often, in case the index's own word
 * (sent when a slot frees) was lost.
 */
export const QUEUED_POLL_MS = 30_000;

/** What is due besides the run state itself; each absent or null when nothing of that kind is. */
export interface WakeInputs {
  /** The earliest deadline of an open WebSocket (epoch ms); null when none is open. */
  socketDeadline?: number | null;
  /** When owed notifications are next handed to the tenant index (epoch ms). */
  notificationsDueAt?: number | null;
  /** When audit entries owed to the tenant's log are next handed over (epoch ms). */
  auditDueAt?: number | null;
  /** The earliest time a call waiting for approval expires (epoch ms). */
  approvalDeadline?: number | null;
  /** When a report owed to the parent, a cancel owed to a child, or the next look at waited-for children is due (epoch ms). */
  familyDueAt?: number | null;
  /** When spans owed to the tenant's trace collector are next exported (epoch ms). */
  tracesDueAt?: number | null;
  /** How long a usage change may wait while the run goes (`usageReportInterval`); absent: `USAGE_REPORT_INTERVAL_MS`. */
  usageReportMs?: number;
}

export function nextWakeAt(run: RunState, now: number, inputs: WakeInputs = {}): number | null {
  const times: number[] = [];
  if (run.status === "running") times.push(Math.max(now, run.next_attempt_at));
  if (run.status === "queued") times.push(now + QUEUED_POLL_MS);
  // A run waiting on a daily budget goes on by itself when the budget renews (the next UTC midnight).
  if (run.status === "waiting_budget" && run.budget_wait?.resume_at != null) times.push(Math.max(now, run.budget_wait.resume_at));
  const report = reportDueAt(run, now, inputs.usageReportMs);
  if (report !== null) times.push(report);
  // Hibernated sockets run no timers: the alarm wakes the object to close an expired one.
  if (inputs.socketDeadline != null) times.push(Math.max(now, inputs.socketDeadline));
  if (inputs.notificationsDueAt != null) times.push(Math.max(now, inputs.notificationsDueAt));
  if (inputs.auditDueAt != null) times.push(Math.max(now, inputs.auditDueAt));
  // An expiry survives restarts because it is a time the alarm is set for, not a timer.
  if (inputs.approvalDeadline != null) times.push(Math.max(now, inputs.approvalDeadline));
  if (inputs.familyDueAt != null) times.push(Math.max(now, inputs.familyDueAt));
  if (inputs.tracesDueAt != null) times.push(Math.max(now, inputs.tracesDueAt));
  return times.length === 0 ? null : Math.min(...times);
}
