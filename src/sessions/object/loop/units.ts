/**
 * The units of work an alarm can run, by kind, and what every unit shares: its timing recorded
 * as a step, and what happens when one fails unexpectedly. `nextUnit` chooses the kind; this
 * table runs it with a scope bound to the run's generation.
 */
import { log } from "../../../log";
import { StaleUnit, type StepScope, type UnitHost, UnitScope } from "../engine/unit-scope";
import type { RunState } from "../store/store";
import { recordUnitSpan } from "../engine/tracing";
import { runModelStep } from "./steps/model-step";
import { UNIT_RETRY } from "./retry";
import { nextAttempt } from "../../../shared/retry";
import { runDiscoveryStep } from "./steps/discovery-step";
import { runSummaryStep } from "./steps/summary-step";
import { runToolStep } from "./steps/tool-step";
import type { NextUnit, UnitKind, UnitOutcome } from "./next-unit";

type Runnable = Extract<NextUnit, { kind: UnitKind }>;

const RUNNERS: { [K in UnitKind]: (scope: StepScope, unit: Extract<Runnable, { kind: K }>) => Promise<UnitOutcome> } = {
  model: (scope, unit) => runModelStep(scope, unit.maxTokens),
  tools: (scope) => runToolStep(scope),
  summary: (scope, unit) => runSummaryStep(scope, unit.maxTokens),
  discover: (scope) => runDiscoveryStep(scope),
};

/**
 * Runs one unit and records it as a step (kind, times, queue time, tokens, outcome). A stale
 * unit's commit throws `StaleUnit`, caught here and nowhere else: the step is "discarded". An
 * unexpected fault (a bug, a storage error) never escapes: the runtime's own alarm retries would
 * bypass the loop's backoff and attempt count, so it is counted and backed off here, and after
 * `MAX_ATTEMPTS` the run fails.
 */
export async function runUnit(host: UnitHost, unit: Runnable): Promise<void> {
  const before = host.store.run();
  const previousEnd = host.store.lastStepEnd();
  const scope = new UnitScope(host, before.generation, before.trace ?? null);
  const startedAt = Date.now();
  let outcome: UnitOutcome;
  try {
    outcome = await (RUNNERS[unit.kind] as (scope: StepScope, unit: Runnable) => Promise<UnitOutcome>)(scope, unit);
  } catch (err) {
    outcome = err instanceof StaleUnit ? "discarded" : faulted(host, scope, unit.kind, err);
  }
  // However a model unit ended, a draft it streamed and did not save goes (none once its answer is saved).
  if (unit.kind === "model") scope.dropDrafts();
  recordStep(scope, unit.kind, before, startedAt, outcome, previousEnd);
  if (outcome === "retry" || outcome === "error") logRetry(host, unit.kind, outcome, Date.now() - startedAt);
}

/** An unexpected fault: logged, and counted as a failed attempt unless the unit went stale meanwhile. */
function faulted(host: UnitHost, scope: UnitScope, kind: UnitKind, err: unknown): "error" {
  log("error", "unit_error", {
    tenant_id: host.session()?.tenant_id,
    session_id: host.session()?.id ?? "(erased)",
    unit: kind,
    error: err instanceof Error ? (err.stack ?? err.message) : String(err),
  });
  // Asked, not committed blindly: a stale unit's fault changes nothing, and throws nothing here.
  if (!scope.current) return "error";
  scope.commit((w) => {
    const next = nextAttempt(UNIT_RETRY, w.store.run().attempts + 1, { transient: true });
    if (next.retry) {
      w.updateRun({ attempts: next.attempts, next_attempt_at: Date.now() + next.delayMs });
    } else {
      w.closeOpenCalls("not run: the session failed");
      w.finishRun("failed", "model_error", "the session failed after repeated internal errors");
    }
  });
  return "error";
}

/** A failed unit that will be tried again: how many attempts so far, and when the next one is. */
function logRetry(host: UnitHost, kind: UnitKind, outcome: UnitOutcome, durationMs: number): void {
  const session = host.session();
  if (!session) return;
  const run = host.store.run();
  log("warn", "unit_retry", {
    tenant_id: session.tenant_id,
    session_id: session.id,
    unit: kind,
    step: run.steps + 1,
    outcome,
    duration_ms: durationMs,
    attempts: run.attempts,
    retry_in_ms: Math.max(0, run.next_attempt_at - Date.now()),
  });
}

/**
 * A unit's row in the steps table, stale or not (its outcome says so). Its queue time counts
 * from when the run could go on: the later of the run's `ready_at` (a start, resume or retry
 * made it runnable) and the end of the unit before it. That end is read from the steps table,
 * not written into the run state: one row per unit, not a step row and a run-state write.
 */
function recordStep(
  scope: UnitScope,
  kind: UnitKind,
  before: RunState,
  startedAt: number,
  outcome: UnitOutcome,
  previousEnd: number,
): void {
  const endedAt = Date.now();
  const spent = kind === "model" || kind === "summary";
  const readyAt = Math.max(before.ready_at, previousEnd);
  // Erased meanwhile: nothing is recorded (the scope's check).
  scope.record((store) => {
    const after = store.run();
    store.appendStep({
      kind,
      started_at: startedAt,
      ended_at: endedAt,
      queued_ms: readyAt > 0 ? Math.max(0, startedAt - readyAt) : 0,
      input_tokens: spent ? after.usage.input_tokens - before.usage.input_tokens : null,
      output_tokens: spent ? after.usage.output_tokens - before.usage.output_tokens : null,
      outcome,
    });
    recordUnitSpan(store, before.trace, kind, scope.trace, startedAt, endedAt, outcome);
  });
}
