import { describe, expect, it } from "vitest";
import {
  dailyBudgetsMayCount,
  REPORT_RETRY_MS,
  UNBUDGETED_USAGE_REPORT_INTERVAL_MS,
  usageReportInterval,
  reportDueAt,
  reportRetryDelay,
  shouldReport,
  USAGE_REPORT_INTERVAL_MS,
} from "../../../src/sessions/object/report/report-policy";
import { nextWakeAt } from "../../../src/sessions/object/loop/next-wake";
import type { RunState } from "../../../src/sessions/object/store/store";

const NOW = 10_000_000;

function run(overrides: Partial<RunState> = {}): RunState {
  return {
    status: "running",
    generation: 1,
    steps: 1,
    attempts: 0,
    error: null,
    stop_reason: null,
    usage: { steps: 1, input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    revision: 5,
    reported_revision: 5,
    urgent_revision: 3,
    last_report_at: NOW - 1_000,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    run_start_seq: 1,
    token_ratio: 1,
    invalid_outputs: 0,
    output_error: null,
    updated_at: "2030-01-01T00:00:00.000Z",
    ...overrides,
  };
}

describe("reportDueAt", () => {
  it.each([
    ["nothing owed", run(), null],
    ["a status change owed", run({ revision: 6, urgent_revision: 6 }), NOW],
    ["usage alone while running: coalesced", run({ revision: 6 }), NOW - 1_000 + USAGE_REPORT_INTERVAL_MS],
    ["usage alone long after the last report", run({ revision: 6, last_report_at: NOW - 60_000 }), NOW],
    ["anything owed once the run stopped", run({ revision: 6, status: "done" }), NOW],
    [
      "a failed report: its retry time",
      run({ revision: 6, urgent_revision: 6, report_failures: 2, report_retry_at: NOW + 7_000 }),
      NOW + 7_000,
    ],
  ] as const)("%s", (_name, given, expected) => {
    expect(reportDueAt(given, NOW)).toBe(expected);
  });

  it("reports a failed one on any wake, and a coalesced one only when due", () => {
    expect(shouldReport(run({ revision: 6, report_failures: 1, report_retry_at: NOW + 5_000 }), NOW)).toBe(true);
    expect(shouldReport(run({ revision: 6 }), NOW)).toBe(false);
    expect(shouldReport(run({ revision: 6 }), NOW + USAGE_REPORT_INTERVAL_MS)).toBe(true);
  });

  it("lets a usage change wait longer when no daily budget counts it, a status change never", () => {
    const unbudgeted = usageReportInterval(false);
    expect(unbudgeted).toBe(UNBUDGETED_USAGE_REPORT_INTERVAL_MS);
    expect(reportDueAt(run({ revision: 6 }), NOW, unbudgeted)).toBe(NOW - 1_000 + UNBUDGETED_USAGE_REPORT_INTERVAL_MS);
    expect(shouldReport(run({ revision: 6 }), NOW + USAGE_REPORT_INTERVAL_MS, unbudgeted)).toBe(false);
    expect(reportDueAt(run({ revision: 6, urgent_revision: 6 }), NOW, unbudgeted)).toBe(NOW);
    expect(reportDueAt(run({ revision: 6, status: "idle" }), NOW, unbudgeted)).toBe(NOW);
    expect(nextWakeAt(run({ revision: 6, status: "waiting_approval" }), NOW, { usageReportMs: unbudgeted })).toBe(NOW);
    expect(nextWakeAt(run({ revision: 6, next_attempt_at: NOW + 60_000 }), NOW, { usageReportMs: unbudgeted })).toBe(NOW + 60_000);
  });

  it("counts a session as budgeted by any daily budget of its limits, or by its API key", () => {
    const limits = { max_tokens_per_day: null, max_cost_usd_per_day: null, max_tokens_per_day_per_subject: null };
    const of = (extra: Record<string, unknown>, api_key_id: string | null = null) =>
      dailyBudgetsMayCount({ limits: { ...limits, ...extra } as never, api_key_id });
    expect(of({})).toBe(false);
    expect(of({ max_tokens_per_day: 1_000 })).toBe(true);
    expect(of({ max_cost_usd_per_day: 1 })).toBe(true);
    expect(of({ max_tokens_per_day_per_subject: 1_000 })).toBe(true);
    expect(of({}, "key_1")).toBe(true);
    expect(usageReportInterval(true)).toBe(USAGE_REPORT_INTERVAL_MS);
  });

  it("backs off failed reports, doubling up to a cap", () => {
    expect([1, 2, 3].map(reportRetryDelay)).toEqual([REPORT_RETRY_MS, 2 * REPORT_RETRY_MS, 4 * REPORT_RETRY_MS]);
    expect(reportRetryDelay(50)).toBe(5 * 60_000);
  });
});

describe("nextWakeAt", () => {
  it.each([
    ["a running session: now", run(), NOW],
    ["a running session in backoff: its retry", run({ next_attempt_at: NOW + 4_000 }), NOW + 4_000],
    [
      "a backoff later than a coalesced report: the report",
      run({ next_attempt_at: NOW + 60_000, revision: 6 }),
      NOW - 1_000 + USAGE_REPORT_INTERVAL_MS,
    ],
    ["a waiting session with nothing owed: no alarm", run({ status: "waiting_approval" }), null],
    ["a finished session owing its report: now", run({ status: "done", revision: 6, urgent_revision: 6 }), NOW],
    [
      "a finished session whose report failed: the retry",
      run({ status: "done", revision: 6, report_failures: 1, report_retry_at: NOW + 5_000 }),
      NOW + 5_000,
    ],
  ] as const)("%s", (_name, given, expected) => {
    expect(nextWakeAt(given, NOW)).toBe(expected);
  });
});

describe("nextWakeAt with open WebSockets", () => {
  it.each([
    ["an idle session: the earliest socket deadline", run({ status: "idle" }), NOW + 60_000, NOW + 60_000],
    ["a deadline already past: now", run({ status: "waiting_approval" }), NOW - 5, NOW],
    ["a running session: the unit comes first", run(), NOW + 60_000, NOW],
    ["no socket: as before", run({ status: "done" }), null, null],
  ] as const)("%s", (_name, given, socketDeadline, expected) => {
    expect(nextWakeAt(given, NOW, { socketDeadline })).toBe(expected);
  });
});
