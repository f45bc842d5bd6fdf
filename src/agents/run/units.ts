/**
 * The units of work an alarm can run, by kind, and what happens when one fails unexpectedly.
 * `nextUnit` chooses the kind; this table runs it with a scope bound to the run's generation.
 */
import { MAX_ATTEMPTS } from "../../limits";
import { type AgentHost, UnitScope } from "../host";
import { runModelStep } from "../model-step";
import { backoffDelay } from "../retry";
import { runDiscoveryStep } from "../discovery-step";
import { runToolStep } from "../tool-step";
import type { NextUnit, UnitKind } from "./next-unit";

type Runnable = Extract<NextUnit, { kind: UnitKind }>;

const RUNNERS: { [K in UnitKind]: (scope: UnitScope, unit: Extract<Runnable, { kind: K }>) => Promise<void> } = {
  model: (scope, unit) => runModelStep(scope, unit.maxTokens),
  tools: (scope) => runToolStep(scope),
  discover: (scope) => runDiscoveryStep(scope),
};

/**
 * Runs one unit. An unexpected fault (a bug, a storage error) never escapes: the runtime's own
 * alarm retries would bypass the loop's backoff and attempt count, so it is counted and backed
 * off here, and after `MAX_ATTEMPTS` the run fails.
 */
export async function runUnit(host: AgentHost, unit: Runnable): Promise<void> {
  const scope = new UnitScope(host, host.store.run().generation);
  try {
    await (RUNNERS[unit.kind] as (scope: UnitScope, unit: Runnable) => Promise<void>)(scope, unit);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        event: "unit_failed",
        session_id: host.session()?.id ?? "(erased)",
        unit: unit.kind,
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      }),
    );
    scope.commit(() => {
      const attempts = host.store.run().attempts + 1;
      if (attempts >= MAX_ATTEMPTS) {
        host.closeOpenCalls("not run: the session failed");
        host.finishRun("failed", "model_error", "the session failed after repeated internal errors");
      } else {
        host.updateRun({ attempts, next_attempt_at: Date.now() + backoffDelay(attempts, null) });
      }
    });
  }
}
