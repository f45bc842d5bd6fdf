/**
 * What the alarm does, stage by stage: expired streams and approvals, a queued session's slot,
 * the tenant's daily count, then the unit `nextUnit` chooses. An erase may come in at any await,
 * so the session's existence is checked in one place, between the stages.
 */
import { usesSummaries } from "../context/plan";
import { runContext } from "../context/run-context";
import type { SessionEngine } from "../engine/engine";
import { nextUnit } from "../loop/next-unit";
import { runUnit } from "../loop/units";
import { expireApprovals, hasExpiredApprovals } from "./decisions";
import { pollChildren } from "../subagents/parent";
import { totalTokens } from "../../../session-config/types";

/**
 * A stage that has nothing to do returns at once, without a promise: awaiting one anyway would
 * end the synchronous stretch, and the next one reads the session and its run state again.
 */
type Stage = () => void | Promise<void>;

export async function wake(engine: SessionEngine): Promise<void> {
  const stages: Stage[] = [
    () => void engine.events.streams.closeExpired(Date.now()),
    () => (hasExpiredApprovals(engine) ? expireApprovals(engine) : undefined),
    () => (engine.store.run().status === "queued" ? askForSlot(engine) : undefined),
    // A session that waits looks at its children now and then, in case a child's report was lost.
    () => (engine.store.run().status === "running" || engine.store.subagents().length === 0 ? undefined : pollChildren(engine)),
    () => (needsTokensToday(engine) ? engine.reporter.send().then(() => undefined) : undefined),
    () => runNextUnit(engine),
  ];
  for (const stage of stages) {
    if (!engine.store.exists()) return;
    const pending = stage();
    if (pending) await pending;
  }
}

/** A queued session that holds a slot now goes on. */
export function takeSlot(engine: SessionEngine): void {
  engine.transaction(() => {
    engine.updateRun({ status: "running" });
    engine.continueRun();
  });
}

/** A queued session asks again now and then, in case the index's own word was lost. */
async function askForSlot(engine: SessionEngine): Promise<void> {
  const claim = await engine.slots.claimChecked(true, () => (engine.store.run().status === "queued" ? null : "moved_on"));
  if (!claim.ok) return;
  if (claim.slot === "ok") takeSlot(engine);
  else if (claim.slot === "suspended") engine.cancelRun();
}

/**
 * A daily budget is checked against the index's count, learned from a report: after a
 * restart, ask once before the first unit instead of running blind.
 */
function needsTokensToday(engine: SessionEngine): boolean {
  const session = engine.requireSession();
  const { limits } = session;
  const budgeted =
    limits.max_tokens_per_day !== null ||
    (limits.max_cost_usd_per_day ?? null) !== null ||
    (limits.max_tokens_per_day_per_subject ?? null) !== null ||
    Boolean(session.api_key_id);
  return budgeted && engine.reporter.tenantTokensToday() === null && engine.store.run().status === "running";
}

async function runNextUnit(engine: SessionEngine): Promise<void> {
  const unit = nextUnit({
    run: engine.store.run(),
    openToolCalls: engine.store.openToolCalls().length,
    limits: engine.requireSession().limits,
    tenantTokensToday: engine.reporter.tenantTokensToday(),
    summaryDue: (maxTokens) => usesSummaries(engine.requireSession()) && runContext(engine, maxTokens).decision.kind === "summarize",
    toolsReady: engine.toolsReady(),
    descendantTokens: totalTokens(engine.store.descendantUsage()),
    budgetReached: engine.reporter.budgetReached(engine.requireSession().limits),
    now: Date.now(),
  });
  if (unit.kind === "finish") engine.finishAtLimit(unit.stopReason);
  else if (unit.kind === "model" || unit.kind === "tools" || unit.kind === "summary" || unit.kind === "discover")
    await runUnit(engine, unit);
}
