/**
 * When a session object tells its tenant index about itself. A status change is told at once (listings,
 * run slots and suspension depend on it); a change of usage alone is coalesced to at most one
 * report every `USAGE_REPORT_INTERVAL_MS` while a run goes, so a tenant's busy sessions do not
 * all report every step to the one index object, and to one every `UNBUDGETED_USAGE_REPORT_INTERVAL_MS`
 * when no daily budget counts the session's spending. A failed report backs off. Pure.
 */
import type { Session } from "../../../session-config/types";
import type { RunState } from "../store/store";

/**
 * The longest a usage change waits while a run goes. It bounds how stale the index's usage
 * (and so the daily token budget check) can be: a run may overshoot the tenant's daily budget by
 * what it spends in this interval after the budget is reached.
 */
export const USAGE_REPORT_INTERVAL_MS = 20_000;
/**
 * The longest a usage change waits while a run goes when no daily budget counts it: only the
 * listing's and the usage report's figures of a running session wait (a status change, the run's
 * end included, is told at once), and a unit of such a run reports nothing for minutes.
 */
export const UNBUDGETED_USAGE_REPORT_INTERVAL_MS = 5 * 60_000;
/** A failed report is tried again after this long, doubling per failure up to the maximum. */
export const REPORT_RETRY_MS = 5_000;
export const REPORT_RETRY_MAX_MS = 5 * 60_000;

/**
 * Whether a daily budget may count this session's spending (the tenant's tokens or cost, its
 * creator's tokens, or, with an API key, the key's tokens), as its limits and key say.
 */
export function dailyBudgetsMayCount(session: Pick<Session, "limits" | "api_key_id">): boolean {
  const { limits } = session;
  return (
    limits.max_tokens_per_day !== null ||
    (limits.max_cost_usd_per_day ?? null) !== null ||
    (limits.max_tokens_per_day_per_subject ?? null) !== null ||
    Boolean(session.api_key_id)
  );
}

/** How long a usage change may wait while a run goes: short while a daily budget counts it. */
export function usageReportInterval(budgeted: boolean): number {
  return budgeted ? USAGE_REPORT_INTERVAL_MS : UNBUDGETED_USAGE_REPORT_INTERVAL_MS;
}

/** When the next report is due (epoch ms), or null when the index is up to date. */
export function reportDueAt(run: RunState, now: number, intervalMs = USAGE_REPORT_INTERVAL_MS): number | null {
  if (run.reported_revision >= run.revision) return null;
  if (run.report_failures > 0) return Math.max(now, run.report_retry_at);
  if (run.urgent_revision > run.reported_revision || run.status !== "running") return now;
  return Math.max(now, run.last_report_at + intervalMs);
}

/**
 * Whether a wake at `now` should report. A report that failed before is tried on any wake,
 * even an early one: it is rare, and the sooner the index hears a final status the better.
 */
export function shouldReport(run: RunState, now: number, intervalMs = USAGE_REPORT_INTERVAL_MS): boolean {
  const due = reportDueAt(run, now, intervalMs);
  return due !== null && (due <= now || run.report_failures > 0);
}

/** The delay before the next try after `failures` failed reports in a row. */
export function reportRetryDelay(failures: number): number {
  return Math.min(REPORT_RETRY_MAX_MS, REPORT_RETRY_MS * 2 ** Math.max(0, failures - 1));
}
