/**
 * One step of a running eval, from the agent store's alarm: read the sessions that run, score
 * those that ended (a judge is a session of its own, so its tokens count like any other), and
 * start more items while the eval's concurrency allows. Every step's state is in the tables, so
 * a restart goes on where it stopped; a start repeated after a crash finds its session (ids are
 * derived, host.ts).
 */
import { log } from "../log";
import { type EvalGate, type EvalHost, evalSessionId, type SessionOutcome } from "./host";
import { judgePrompt, parseVerdict, type ScoreInput, scoreOne } from "./scorers";
import * as evals from "./store/evals";
import type { DatasetItem, ItemScore } from "./types";

/** How often running sessions are read: completion is polled (see docs/evals.md, "How it runs"). */
export const EVAL_POLL_MS = 1_000;
/** The longest wait between two looks at an eval's sessions. */
export const MAX_EVAL_POLL_MS = 10_000;

/**
 * How soon the next step looks at the eval's sessions again: in a second while anything changed
 * (an item or judge ended, or a start) or no item's session has run for long; else at a tenth of
 * the youngest running session's age, at most `MAX_EVAL_POLL_MS`. A ten-minute session is read
 * about 80 times instead of 600, and an end is noticed within a tenth of the time it took.
 */
export function pollDelay(now: number, youngestStart: number | null, changed: boolean): number {
  if (changed || youngestStart === null) return EVAL_POLL_MS;
  return Math.min(MAX_EVAL_POLL_MS, Math.max(EVAL_POLL_MS, Math.round((now - youngestStart) / 10)));
}
/** A refused start (slots or budgets in use) is tried again after at least this long. */
const MIN_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** After the creator's gate refused for now (the tenant suspended, its firing rate used up). */
const REFUSED_GATE_MS = 5_000;

/** Advances one eval; the time it wants its next step at, or null when it has nothing left to do. */
export async function advanceEval(
  sql: SqlStorage,
  host: EvalHost,
  tenantId: string,
  row: evals.EvalRow,
  now: number,
): Promise<number | null> {
  const config = evals.configOf(row);
  // Cancelled, or failed when its creator may start no more: what still runs is cancelled.
  if (row.status !== "running") {
    await cancelInFlight(sql, host, tenantId, row.id, now);
    return null;
  }
  const judgeKeys = config.scorers.flatMap((s, i) => (s.type === "judge" ? [config.scorer_keys[i]!] : []));
  // What the next look's time depends on (`pollDelay`).
  let changed = false;
  let youngestStart: number | null = null;
  for (const item of evals.itemsWith(sql, row.id, ["running"], config.concurrency)) {
    const outcome = await host.read(tenantId, item.session_id!);
    if (outcome === null) {
      evals.updateItem(sql, row.id, item.position, { status: "failed", error: "The item's session no longer exists.", finished_at: now });
      changed = true;
      continue;
    }
    if (!outcome.final) {
      youngestStart = Math.max(youngestStart ?? -Infinity, item.started_at ?? now);
      continue;
    }
    changed = true;
    const input = scoreInput(JSON.parse(item.item) as DatasetItem, outcome);
    const scores: Record<string, ItemScore> = {};
    for (const [i, scorer] of config.scorers.entries()) {
      if (scorer.type === "judge") continue;
      const { score, reason } = await scoreOne(scorer, input);
      scores[config.scorer_keys[i]!] = { score, reason };
    }
    const judging = judgeKeys.length > 0 && outcome.status === "done";
    if (!judging) for (const key of judgeKeys) scores[key] = { score: null, reason: `Not judged: the session ended ${outcome.status}.` };
    evals.updateItem(sql, row.id, item.position, {
      status: judging ? "judging" : outcome.status === "done" ? "done" : "failed",
      session_status: outcome.status,
      scores: JSON.stringify(scores),
      cost_usd: outcome.costUsd,
      steps: outcome.steps,
      judges: judging ? JSON.stringify(Object.fromEntries(judgeKeys.map((k) => [k, null]))) : null,
      outcome: judging ? JSON.stringify({ answer: outcome.answer, output: outcome.output ?? null }) : null,
      ...(judging ? {} : { finished_at: now }),
    });
  }
  let retryAt: number | null = null;
  // The creator's gate, asked once a step and only when something is to start.
  const asked: { gate: EvalGate | null } = { gate: null };
  const open = async () => (asked.gate ??= await host.gate(tenantId, config.creator, now));
  let busy = 0;
  for (const item of evals.itemsWith(sql, row.id, ["judging"], 1_000)) {
    // Judges are short: an eval with any is looked at every second.
    changed = true;
    const judges = JSON.parse(item.judges ?? "{}") as Record<string, string | null>;
    const scores = JSON.parse(item.scores) as Record<string, ItemScore>;
    let judgeCost = item.judge_cost_usd ?? 0;
    for (const [key, sessionId] of Object.entries(judges)) {
      if (sessionId === null) continue;
      const outcome = await host.read(tenantId, sessionId);
      if (outcome && !outcome.final) {
        busy++;
        continue;
      }
      judgeCost += outcome?.costUsd ?? 0;
      scores[key] = judgeScore(outcome);
      delete judges[key];
    }
    // Judges not started yet start here, within the eval's concurrency like its items.
    for (const [key, sessionId] of Object.entries(judges)) {
      if (sessionId !== null || busy >= config.concurrency) continue;
      const go = await open();
      // Refused for now: asked again after a pause, not at every step. Refused for good: below.
      if (go.kind === "later") retryAt = Math.min(retryAt ?? Infinity, now + REFUSED_GATE_MS);
      if (go.kind !== "go") break;
      const scorer = config.scorers[config.scorer_keys.indexOf(key)]!;
      if (scorer.type !== "judge") continue;
      const id = await evalSessionId(row.id, item.position, `judge:${key}`);
      const source = JSON.parse(item.item) as DatasetItem;
      const prompt = judgePrompt(scorer.rubric, { ...scoreInputFromRow(item, source), input: source.input });
      const started = await host.start(
        go.actor,
        { model: scorer.model, input: prompt, metadata: metadataOf(row.id, item.position, key) },
        id,
      );
      if (started.kind === "started") {
        judges[key] = id;
        busy++;
      } else if (started.kind === "later") retryAt = Math.min(retryAt ?? Infinity, now + bounded(started.retryAfterMs));
      else scores[key] = { score: null, reason: `The judge could not be asked: ${started.error}` };
      if (started.kind === "refused") delete judges[key];
    }
    const left = Object.keys(judges).length;
    evals.updateItem(sql, row.id, item.position, {
      scores: JSON.stringify(scores),
      judges: left ? JSON.stringify(judges) : null,
      judge_cost_usd: judgeCost,
      ...(left ? {} : { status: "done", outcome: null, finished_at: now }),
    });
  }
  busy += evals.countItems(sql, row.id).running;
  while (busy < config.concurrency && retryAt === null && asked.gate?.kind !== "stop") {
    const [item] = evals.itemsWith(sql, row.id, ["pending"], 1);
    if (!item) break;
    const go = await open();
    if (go.kind === "later") retryAt = now + REFUSED_GATE_MS;
    if (go.kind !== "go") break;
    const id = await evalSessionId(row.id, item.position, "item");
    const source = JSON.parse(item.item) as DatasetItem;
    const request = {
      agent: `${config.agent.agent_id}@${config.agent.version}`,
      input: source.input,
      metadata: metadataOf(row.id, item.position),
    };
    const started = await host.start(go.actor, request, id);
    if (started.kind !== "later") changed = true;
    if (started.kind === "later") retryAt = now + bounded(started.retryAfterMs);
    else if (started.kind === "refused") {
      evals.updateItem(sql, row.id, item.position, {
        status: "failed",
        session_id: id,
        error: started.error,
        started_at: now,
        finished_at: now,
      });
    } else {
      evals.updateItem(sql, row.id, item.position, { status: "running", session_id: id, started_at: now });
      busy++;
    }
  }
  // The creator may start nothing more (a judge's start or an item's): the eval ends here, and
  // neither the items not started nor the judges not asked are left waiting for a start.
  const gate = asked.gate;
  if (gate?.kind === "stop") {
    evals.cancelPending(sql, row.id, now);
    evals.finishEval(sql, row.id, "failed", gate.error, now);
    await cancelInFlight(sql, host, tenantId, row.id, now);
    return null;
  }
  const counts = evals.countItems(sql, row.id);
  if (counts.pending + counts.running + counts.judging === 0) {
    evals.finishEval(sql, row.id, "completed", null, now);
    log("info", "eval.finished", { tenant_id: tenantId, eval_id: row.id });
    return null;
  }
  return Math.max(retryAt ?? 0, now + pollDelay(now, youngestStart, changed));
}

/** Ends what an eval that stopped still runs: its items' and judges' sessions are cancelled. */
async function cancelInFlight(sql: SqlStorage, host: EvalHost, tenantId: string, evalId: string, now: number): Promise<void> {
  for (const item of evals.itemsWith(sql, evalId, ["running", "judging"], 1_000)) {
    for (const id of sessionsOf(item)) await host.cancel(tenantId, id).catch(() => undefined);
    evals.updateItem(sql, evalId, item.position, { status: "cancelled", judges: null, outcome: null, finished_at: now });
  }
}

function bounded(ms: number): number {
  return Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, ms));
}

function metadataOf(evalId: string, position: number, judge?: string): Record<string, string> {
  return { eval_id: evalId, eval_item: String(position), ...(judge ? { eval_judge: judge } : {}) };
}

function sessionsOf(item: evals.ItemRow): string[] {
  const judges = Object.values(JSON.parse(item.judges ?? "{}") as Record<string, string | null>).filter((id): id is string => id !== null);
  return item.status === "running" && item.session_id ? [item.session_id] : judges;
}

function scoreInput(item: DatasetItem, outcome: SessionOutcome): ScoreInput {
  return {
    answer: outcome.answer,
    output: outcome.output,
    ...(item.expected !== undefined ? { expected: item.expected } : {}),
    input: item.input,
    toolCalls: outcome.toolCalls,
    steps: outcome.steps,
    costUsd: outcome.costUsd ?? 0,
    status: outcome.status,
  };
}

/** What a judge is shown of an item whose session ended: kept on the row as the answer it read. */
function scoreInputFromRow(row: evals.ItemRow, item: DatasetItem): { answer: string | null; output: unknown; expected?: unknown } {
  const kept = JSON.parse(row.outcome ?? "null") as { answer: string | null; output: unknown } | null;
  return {
    answer: kept?.answer ?? null,
    output: kept?.output ?? null,
    ...(item.expected !== undefined ? { expected: item.expected } : {}),
  };
}

function judgeScore(outcome: SessionOutcome | null): ItemScore {
  if (outcome === null) return { score: null, reason: "The judge's session no longer exists." };
  if (outcome.status !== "done" || outcome.answer === null)
    return { score: null, reason: `The judge's session ended ${outcome.status} without an answer.` };
  const verdict = parseVerdict(outcome.answer);
  return verdict.ok ? { score: verdict.score, reason: verdict.reason } : { score: null, reason: verdict.problem };
}
