/** The run state of a session just created: idle, nothing spent, its creation owed to the index. */
import type { RunState } from "../store/store";
import { EMPTY_USAGE } from "../../../session-config/types";

export function initialRun(now: string): RunState {
  return {
    status: "idle",
    generation: 0,
    steps: 0,
    attempts: 0,
    error: null,
    stop_reason: null,
    usage: { ...EMPTY_USAGE },
    revision: 1,
    reported_revision: 0,
    urgent_revision: 1,
    last_report_at: 0,
    report_failures: 0,
    report_retry_at: 0,
    next_attempt_at: 0,
    ready_at: 0,
    run_started_at: 0,
    run_start_seq: 0,
    token_ratio: 1,
    invalid_outputs: 0,
    output_error: null,
    updated_at: now,
  };
}
