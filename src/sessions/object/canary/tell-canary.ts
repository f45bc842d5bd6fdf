/**
 * A session on a canary's arm tells its agent store of each run's end (`done` or `failed`; a
 * cancel is the caller's doing, not the version's): the facts the rule's scorers read, kept in the
 * transaction that ends the run (a message queued behind it starts the next run in that same
 * transaction, replacing the run's state) and sent from `reconcile` until the store took them (a
 * failure is tried again from the alarm). Every other session skips this at the first check, on
 * the session it holds in memory: no read, no call.
 */
import { log } from "../../../log";
import { agentStoreStub } from "../../../objects";
import { budgetCostUsd } from "../../../models/prices";
import { loadConfig } from "../../../config";
import type { CanaryRunFacts } from "../../../agents/canary-scoring";
import { MAX_CANARY_ANSWER_CHARS, MAX_CANARY_TOOL_CALLS } from "../../../agents/canary-scoring";
import { finalText } from "../subagents/report";
import type { FamilyHooks } from "../engine/reconcile";
import type { SessionStore } from "../store/store";
import { isLive } from "../engine/gone";

/** A failed hand-over is tried again after this long. */
export const CANARY_RETRY_MS = 5_000;

/** What telling the canary needs of the engine. */
export interface CanaryHost {
  readonly store: SessionStore;
  readonly env: Cloudflare.Env;
}

const retryAt = new WeakMap<CanaryHost, number>();

/**
 * Ended runs kept for the agent store at most; past it the oldest goes (logged): a store out of
 * reach that long is an outage, and a canary judges on a sample of runs anyway.
 */
export const MAX_OWED_CANARY_RUNS = 20;

const onCanaryArm = (engine: CanaryHost) => engine.store.session()?.agent?.canary === true;

/** Inside the transaction that ends a run, before a queued message starts the next: the run's facts kept until told. */
export function keepRunEnd(engine: CanaryHost): void {
  if (!onCanaryArm(engine)) return;
  const number = engine.store.run().runs ?? 0;
  if (number <= engine.store.canaryToldRun()) return;
  try {
    engine.store.oweCanaryRun(number, runFacts(engine, number));
  } catch (error) {
    // Never the run's end undone for its report: the run is told from its state, if still there.
    log("warn", "canary_report_not_kept", { session_id: engine.store.session()?.id, run: number, error: String(error) });
    return;
  }
  const owed = engine.store.owedCanaryRuns(MAX_OWED_CANARY_RUNS + 1);
  if (owed.length > MAX_OWED_CANARY_RUNS) {
    engine.store.dropCanaryRun(owed[0]!.run);
    log("warn", "canary_report_dropped", { session_id: engine.store.session()?.id, run: owed[0]!.run });
  }
}

/**
 * The oldest run end owed: kept when it ended, or (a run that ended before its facts were kept,
 * in storage of an earlier version) the run that just ended, its facts read from its state.
 */
function nextOwed(engine: CanaryHost): { run: number; facts: CanaryRunFacts | null } | null {
  if (!onCanaryArm(engine)) return null;
  const [kept] = engine.store.owedCanaryRuns<CanaryRunFacts>(1);
  if (kept) return kept;
  const run = engine.store.run();
  if (run.status !== "done" && run.status !== "failed") return null;
  const number = run.runs ?? 0;
  return number > engine.store.canaryToldRun() ? { run: number, facts: null } : null;
}

/** The run whose end is owed to the agent store, or null (not a canary session, or nothing owed). */
export function canaryOwed(engine: CanaryHost): number | null {
  return nextOwed(engine)?.run ?? null;
}

/** The facts of the run that just ended, as the scorers read them. */
export function runFacts(engine: CanaryHost, runNumber: number): CanaryRunFacts {
  const { store } = engine;
  const session = store.requireSession();
  const run = store.run();
  const answer = finalText(store.latestMessages(4).reverse());
  const calls = store.toolCallPage({ first: run.run_start_seq, second: Number.MAX_SAFE_INTEGER }, MAX_CANARY_TOOL_CALLS).calls;
  return {
    session_id: session.id,
    run: runNumber,
    status: run.status,
    answer: answer === "" ? null : answer.slice(0, MAX_CANARY_ANSWER_CHARS),
    output: run.status === "done" ? (store.runOutput() ?? null) : null,
    tool_calls: calls.map((call) => ({ name: call.name, input: call.input })),
    steps: run.steps,
    cost_usd: budgetCostUsd(loadConfig(engine.env).prices, session.model, run.usage),
    session_created_at: Date.parse(session.created_at),
  };
}

/** Hands the owed run ends to the agent store, oldest first; false when it could not be reached (tried again later). */
export async function tellCanary(engine: CanaryHost): Promise<boolean> {
  for (let owed = nextOwed(engine); owed !== null; owed = nextOwed(engine)) {
    const session = engine.store.requireSession();
    if (owed.run > engine.store.canaryToldRun()) {
      const pin = session.agent!;
      try {
        await agentStoreStub(engine.env, session.tenant_id).recordCanaryRun(
          session.tenant_id,
          pin.id,
          pin.alias!,
          pin.version,
          owed.facts ?? runFacts(engine, owed.run),
        );
      } catch (error) {
        retryAt.set(engine, Date.now() + CANARY_RETRY_MS);
        log("warn", "canary_report_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
        return false;
      }
      if (!isLive(engine.store)) return true;
      engine.store.putCanaryToldRun(Math.max(engine.store.canaryToldRun(), owed.run));
    }
    if (owed.facts !== null) engine.store.dropCanaryRun(owed.run);
  }
  return true;
}

/** The family's hooks with the canary's beside them: one slot in `reconcile`, both settled in turn. */
export function withCanary(family: FamilyHooks, engine: CanaryHost): FamilyHooks {
  return {
    runEnded() {
      family.runEnded?.();
      keepRunEnd(engine);
    },
    dueAt(now) {
      const own = canaryOwed(engine) === null ? null : Math.max(now, retryAt.get(engine) ?? 0);
      const theirs = family.dueAt(now);
      return own === null ? theirs : theirs === null ? own : Math.min(own, theirs);
    },
    settle(fromAlarm) {
      const owed = canaryOwed(engine) !== null && (retryAt.get(engine) ?? 0) <= Date.now();
      const settling = family.settle(fromAlarm);
      if (!owed) return settling;
      return (async () => {
        const sent = settling ? await settling : false;
        if (!isLive(engine.store)) return sent;
        // Tried, sent or not: the alarm is synced again for a retry.
        await tellCanary(engine);
        return true;
      })();
    },
  };
}
