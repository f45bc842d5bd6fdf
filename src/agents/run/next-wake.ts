/**
 * When the Agent's alarm must next fire: the earliest of the next unit of a running session and
 * the next report owed to the tenant index. Null: nothing is due, and the alarm is removed, so
 * an idle, waiting or finished session costs nothing. Pure.
 */
import { reportDueAt } from "../report/report-policy";
import type { RunState } from "../store";

export function nextWakeAt(run: RunState, now: number): number | null {
  const times: number[] = [];
  if (run.status === "running") times.push(Math.max(now, run.next_attempt_at));
  const report = reportDueAt(run, now);
  if (report !== null) times.push(report);
  return times.length === 0 ? null : Math.min(...times);
}
