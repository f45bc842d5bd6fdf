/**
 * The session's two key-value records: its fixed settings (`session`, written once) and its
 * run state (`run`), both read through the stretch cache (../engine/kv-stretch.ts).
 */
import type { BudgetWait } from "../../../usage/budgets";
import type { KvStretchCache } from "../engine/kv-stretch";
import type { SessionInit, SessionStatus, StopReason, Usage } from "../../../session-config/types";
import type { RunTrace } from "../../../session-config/trace-types";
import type { RedactionSettings } from "../../../shared/redaction/settings";

export interface RunState {
  status: SessionStatus;
  /** Bumped by start, cancel and pause; a unit whose generation is stale discards its result. */
  generation: number;
  /** Model calls in the current run (the step limit counts these). */
  steps: number;
  /** Failed tries of the current unit. */
  attempts: number;
  error: string | null;
  stop_reason: StopReason | null;
  /** Session totals; `steps` counts model calls over all runs. */
  usage: Usage;
  /** Runs started over the session's life; absent in sessions stored before usage rollups: none counted yet. */
  runs?: number;
  /** Bumped on every change the tenant index should hear of. */
  revision: number;
  /** The highest revision the tenant index has acknowledged. */
  reported_revision: number;
  /**
   * The revision of the newest change the index must hear of at once (a status change); a
   * change of usage alone may wait for the next coalesced report (see report/report-policy.ts).
   */
  urgent_revision: number;
  /** When the index last acknowledged a report, epoch ms (0: never). */
  last_report_at: number;
  /** Failed reports in a row, for their backoff. */
  report_failures: number;
  /** Epoch ms before which a failed report is not tried again (0: none failed). */
  report_retry_at: number;
  /** Epoch ms before which the next unit must not start (a retry's backoff; 0: none). */
  next_attempt_at: number;
  /** Epoch ms since which the next unit has been ready: the run went running, or the last unit ended. */
  ready_at: number;
  /** Epoch ms when the current (or last) run started, for its duration in the logs (0: unknown). */
  run_started_at: number;
  /** The seq of the current run's first user message, which every model call is sent (0: none). */
  run_start_seq: number;
  /** The provider's input count over the estimate at the last call, ≥ 1 (see `calibratedRatio`). */
  token_ratio: number;
  /** Answers of the current run that were not valid for its `output_schema`. */
  invalid_outputs: number;
  /** Why the last of them was not valid; the run's `error` if it fails with `invalid_output`. */
  output_error: string | null;
  updated_at: string;
  /**
   * The `run_start_seq` of the run that read the result of an untrusted tool (src/policy/trust.ts):
   * that run is tainted until it ends, and the next, with a start of its own, is not; the tool
   * policy reads it as `context.tainted`. Absent in run states stored before taint: none tainted.
   */
  tainted_run?: number;
  /** The current run's trace, while it goes and the tenant exports traces; absent (or null) otherwise. */
  trace?: RunTrace | null;
  /** The redaction the current run started with; absent (runs started before redaction existed) or null: none. */
  redaction?: RedactionSettings | null;
  /**
   * While `waiting_budget`: the budget the run waits on and, for a daily one, when it renews (epoch
   * ms, the next UTC midnight); absent (or null) otherwise, and in sessions stored before budgets paused.
   */
  budget_wait?: BudgetWaitState | null;
}

/** Whether the current run has read an untrusted tool's result. */
export function runTainted(run: Pick<RunState, "tainted_run" | "run_start_seq">): boolean {
  return run.tainted_run !== undefined && run.tainted_run === run.run_start_seq;
}

export interface BudgetWaitState {
  budget: BudgetWait;
  resume_at: number | null;
}

export interface StoredSession extends SessionInit {
  created_at: string;
}

export const SESSION_KEY = "session";
const RUN_KEY = "run";

export function readSession(kv: KvStretchCache): StoredSession | undefined {
  return kv.get<StoredSession>(SESSION_KEY);
}

export function writeSession(kv: KvStretchCache, session: StoredSession): void {
  kv.put(SESSION_KEY, session);
}

/** The run state, or undefined when the session was never created (or was erased). */
export function readRun(kv: KvStretchCache): RunState | undefined {
  return kv.get<RunState>(RUN_KEY);
}

export function writeRun(kv: KvStretchCache, run: RunState): void {
  kv.put(RUN_KEY, run);
}
