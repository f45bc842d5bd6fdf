/**
 * What the alarm does, stage by stage: expired streams and approvals, a queued session's slot, a
 * renewed daily budget, the tenant's daily count, then the unit `nextUnit` chooses. An erase may come in at any await:
 * each stage's await is followed by the engine's existence check (`stillLive`).
 */
import { usesSummaries } from "../context/plan";
import { runContext } from "../context/run-context";
import { requireLive, SessionGone, stillLive } from "../engine/gone";
import { log } from "../../../log";
import { nextUnit } from "../loop/next-unit";
import { runUnit } from "../loop/units";
import type { SessionEngine } from "../engine/engine";
import { expireApprovals, hasExpiredApprovals } from "./decisions";
import { claimQueuedSlot } from "./run-state";
import { owesAdmission, settleAdmission } from "./admission";
import { pollChildren } from "../subagents/parent";
import { totalTokens } from "../../../session-config/types";
import { askTree, ownCallRefusal, TREE_ASK_RETRY_MS } from "../subagents/tree";
import { budgetRenewed, resumeFromBudget, sessionCostUsd, waitForBudget } from "./budget-wait";
import { dailyBudgetsMayCount } from "../report/report-policy";

/**
 * The alarm is the one caller that runs units, so it is handed the engine itself; each stage
 * passes on only the narrow host its module declares (the unit runner's, the family's, the context's).
 */
type WakeHost = SessionEngine;

/**
 * A stage that has nothing to do returns at once, without a promise: awaiting one anyway would
 * end the synchronous stretch, and the next one reads the session and its run state again.
 */
type Stage = () => void | Promise<void>;

export async function wake(engine: WakeHost): Promise<void> {
  const stages: Stage[] = [
    () => void engine.events.streams.closeExpired(Date.now()),
    () => (hasExpiredApprovals(engine) ? expireApprovals(engine) : undefined),
    // A queued session asks again now and then, in case the index's own word was lost.
    () => (engine.store.run().status === "queued" ? claimQueuedSlot(engine) : undefined),
    // A daily budget the run waited on renewed: it claims a slot like any start, and every budget is checked again.
    () => (budgetRenewed(engine.store.run(), Date.now()) ? resumeFromBudget(engine) : undefined),
    // A session that waits looks at its children now and then, in case a child's report was lost.
    () => (engine.store.run().status === "running" || engine.store.subagents().length === 0 ? undefined : pollChildren(engine)),
    () => (needsTokensToday(engine) ? engine.reporter.send().then(() => undefined) : undefined),
    () => runNextUnit(engine),
  ];
  requireLive(engine.store);
  // A create's admission a crash or a failed call left unanswered is settled before anything runs
  // (control/admission.ts); still unanswered, nothing runs and the reconcile sets the next ask.
  if (owesAdmission(engine) && !(await admitted(engine))) return;
  for (const stage of stages) {
    const pending = stage();
    if (pending) await stillLive(engine.store, pending);
  }
}

/**
 * A daily budget is checked against the index's count, learned from a report: after a
 * restart, ask once before the first unit instead of running blind.
 */
function needsTokensToday(engine: WakeHost): boolean {
  return (
    dailyBudgetsMayCount(engine.requireSession()) && engine.reporter.tenantTokensToday() === null && engine.store.run().status === "running"
  );
}

async function admitted(engine: WakeHost): Promise<boolean> {
  // An ask under way (the create's own) or one that failed lately: not due yet.
  if (Date.now() < engine.store.admissionAskAt) return false;
  try {
    await settleAdmission(engine);
  } catch (error) {
    if (error instanceof SessionGone) throw error;
    const session = engine.requireSession();
    log("warn", "admission_unanswered", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
  }
  requireLive(engine.store);
  return !owesAdmission(engine);
}

async function runNextUnit(engine: WakeHost): Promise<void> {
  const unit = nextUnit({
    run: engine.store.run(),
    openToolCalls: engine.store.openToolCalls().length,
    limits: engine.requireSession().limits,
    tenantTokensToday: engine.reporter.tenantTokensToday(),
    summaryDue: (maxTokens) => usesSummaries(engine.requireSession()) && runContext(engine, maxTokens).decision.kind === "summarize",
    toolsReady: engine.toolsReady(),
    descendantTokens: totalTokens(engine.store.descendantUsage()),
    budgetReached: engine.reporter.budgetReached(engine.requireSession().limits),
    sessionCostUsd: sessionCostUsd(engine),
    now: Date.now(),
  });
  if (unit.kind === "finish") engine.finishAtLimit(unit.stopReason);
  else if (unit.kind === "wait_budget") waitForBudget(engine, unit.budget, Date.now());
  else if (unit.kind === "model") {
    if (await modelCallAllowed(engine)) await runUnit(engine, unit);
  } else if (unit.kind === "tools" || unit.kind === "summary" || unit.kind === "discover") await runUnit(engine, unit);
}

/**
 * The tree's root counts every model call of its tree (subagents/tree.ts), its own by its steps,
 * decided here: past `max_model_calls_per_tree` the run ends `done` with `budget_limit`, its
 * `error` naming the limit. It ends rather than waits: the cap guards against a runaway fan-out
 * of one task, counted at the root over every session of the tree, and no one session's budget raises it. A root that could not be asked is asked
 * again `TREE_ASK_RETRY_MS` later; no call is made meanwhile.
 */
async function modelCallAllowed(engine: WakeHost): Promise<boolean> {
  const session = engine.requireSession();
  const { generation } = engine.store.run();
  if (!session.parent) return endIfRefused(engine, ownCallRefusal(engine.store));
  let refused: string | null;
  try {
    refused = await stillLive(engine.store, askTree(engine.env, session, { kind: "model_call" }));
  } catch (error) {
    if (error instanceof SessionGone) throw error;
    log("warn", "tree_ask_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
    engine.transaction(() => engine.updateRun({ next_attempt_at: Date.now() + TREE_ASK_RETRY_MS }));
    return false;
  }
  const run = engine.store.run();
  // A cancel, a pause or a new run came meanwhile: this unit is no longer theirs to run or end.
  if (run.status !== "running" || run.generation !== generation) return false;
  return endIfRefused(engine, refused);
}

function endIfRefused(engine: WakeHost, refused: string | null): boolean {
  if (refused === null) return true;
  engine.finishRun("done", "budget_limit", refused);
  return false;
}
