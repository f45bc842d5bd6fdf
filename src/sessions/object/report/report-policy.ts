/**
 * When a session object tells its tenant index about itself. A status change is told at once (listings,
 * run slots and suspension depend on it); a change of usage alone is coalesced to at most one
 * report every `USAGE_REPORT_INTERVAL_MS` while a run goes, so a tenant's busy sessions do not
 * all report every step to the one index object. A failed report backs off. Pure.
 */
import type { RunState } from "../store/store";

/**
 * The longest a usage change waits while a run goes. It bounds how stale the index's usage
 * (and so the daily token budget check) can be: a run may overshoot the tenant's daily budget by
 * what it spends in this interval after the budget is reached.
 */
export const USAGE_REPORT_INTERVAL_MS = 20_000;
/** A failed report is tried again after this long, doubling per failure up to the maximum. */
export const REPORT_RETRY_MS = 5_000;
export const REPORT_RETRY_MAX_MS = 5 * 60_000;

/** When the next report is due (epoch ms), or null when the index is up to date. */
export function reportDueAt(run: RunState, now: number): number | null {
  if (run.reported_revision >= run.revision) return null;
  if (run.report_failures > 0) return Math.max(now, run.report_retry_at);
  if (run.urgent_revision > run.reported_revision || run.status !== "running") return now;
  return Math.max(now, run.last_report_at + USAGE_REPORT_INTERVAL_MS);
}

/**
 * Whether a wake at `now` should report. A report that failed before is tried on any wake,
 * even an early one: it is rare, and the sooner the index hears a final status the better.
 */
export function shouldReport(run: RunState, now: number): boolean {
  const due = reportDueAt(run, now);
  return due !== null && (due <= now || run.report_failures > 0);
}

/** The delay before the next try after `failures` failed reports in a row. */
export function reportRetryDelay(failures: number): number {
  return Math.min(REPORT_RETRY_MAX_MS, REPORT_RETRY_MS * 2 ** Math.max(0, failures - 1));
}
