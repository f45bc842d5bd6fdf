/**
 * A session on a canary's arm tells its agent store of each run's end (`done` or `failed`; a
 * cancel is the caller's doing, not the version's): the facts the rule's scorers read, sent from
 * `reconcile` until the store took them (a failure is tried again from the alarm). Every other
 * session skips this at the first check, on the session it holds in memory: no read, no call.
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

/** The run whose end is owed to the agent store, or null (not a canary session, a run going, or told already). */
export function canaryOwed(engine: CanaryHost): number | null {
  const session = engine.store.session();
  if (session?.agent?.canary !== true) return null;
  const run = engine.store.run();
  if (run.status !== "done" && run.status !== "failed") return null;
  const number = run.runs ?? 0;
  return number > engine.store.canaryToldRun() ? number : null;
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

/** Hands the run's end to the agent store; false when it could not be reached (tried again later). */
export async function tellCanary(engine: CanaryHost): Promise<boolean> {
  const runNumber = canaryOwed(engine);
  if (runNumber === null) return true;
  const session = engine.store.requireSession();
  const pin = session.agent!;
  try {
    await agentStoreStub(engine.env, session.tenant_id).recordCanaryRun(
      session.tenant_id,
      pin.id,
      pin.alias!,
      pin.version,
      runFacts(engine, runNumber),
    );
  } catch (error) {
    retryAt.set(engine, Date.now() + CANARY_RETRY_MS);
    log("warn", "canary_report_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
    return false;
  }
  if (isLive(engine.store)) engine.store.putCanaryToldRun(Math.max(engine.store.canaryToldRun(), runNumber));
  return true;
}

/** The family's hooks with the canary's beside them: one slot in `reconcile`, both settled in turn. */
export function withCanary(family: FamilyHooks, engine: CanaryHost): FamilyHooks {
  return {
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
