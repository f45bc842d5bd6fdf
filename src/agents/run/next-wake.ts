/**
 * When the Agent's alarm must next fire: the earliest of the next unit of a running session, the
 * next report owed to the tenant index, and the deadline of an open WebSocket (whose credential
 * expires then). Null: nothing is due, and the alarm is removed, so an idle, waiting or finished
 * session costs nothing. Pure.
 */
import { reportDueAt } from "../report/report-policy";
import type { RunState } from "../store";

export interface WakeInputs {
  /** The earliest deadline of an open WebSocket (epoch ms); null when none is open. */
  socketDeadline?: number | null;
}

export function nextWakeAt(run: RunState, now: number, inputs: WakeInputs = {}): number | null {
  const times: number[] = [];
  if (run.status === "running") times.push(Math.max(now, run.next_attempt_at));
  const report = reportDueAt(run, now);
  if (report !== null) times.push(report);
  // Hibernated sockets run no timers: the alarm wakes the object to close an expired one.
  if (inputs.socketDeadline != null) times.push(Math.max(now, inputs.socketDeadline));
  return times.length === 0 ? null : Math.min(...times);
}
