/**
 * What the next model call is sent, read from storage: the fit of the session's strategy over
 * the stored estimates (read newest first, only as far as the window reaches), then only the
 * messages chosen. For `summary`, the decision may instead be to fold older messages into the
 * summary first (the `summary` unit).
 */
import { type Message } from "../../../session-config/types";
import type { ModelMessage, ToolDefinition } from "../model/provider";
import { withImageData } from "../images/resolve";
import { contextTokensFor, type ModelCatalog } from "../../../models/catalog";
import type { SessionStore, RunState, StoredSession, StoredSummary } from "../store/store";
import { assemble } from "./assemble";
import { foldCap, inputBudget, messageBudget, summaryMaxTokens } from "./budget";
import { estimateJsonTokens, estimateTextTokens } from "./estimate";
import { resolveContext } from "../../../session-config/context-settings";
import { fitWindow, type MessageMeta, planSummary } from "./window";

/** The store's reads a context decision makes. */
export type ContextReads = Pick<
  SessionStore,
  "firstMessageMeta" | "messageMeta" | "metaNewestFirst" | "latestSummary" | "messagesForWindow" | "imageData"
>;

export interface PlanInputs {
  store: ContextReads;
  session: StoredSession;
  run: RunState;
  catalog: ModelCatalog;
  tools: readonly ToolDefinition[];
}

export type ContextDecision =
  | {
      kind: "call";
      startSeq: number | null;
      pinned: MessageMeta[];
      summary: StoredSummary | null;
      /** The estimate of the whole input: system, tools, pinned, summary and window. */
      estimatedTokens: number;
      /** The call's input budget in provider tokens. */
      budget: number;
      overBudget: boolean;
    }
  | {
      kind: "summarize";
      previous: StoredSummary | null;
      /** The messages to fold, inclusive. */
      fromSeq: number;
      throughSeq: number;
      /** The summary answer's cap. */
      maxTokens: number;
    };

/** Whether the session's strategy can ever need a summary unit; other strategies never read for it. */
export function usesSummaries(session: Pick<StoredSession, "context">): boolean {
  return resolveContext(session.context).strategy === "summary";
}

/** The estimate of what every call sends besides messages. */
export function fixedTokens(system: string | null, tools: readonly ToolDefinition[]): number {
  return (system ? estimateTextTokens(system) : 0) + (tools.length ? estimateJsonTokens(tools) : 0);
}

/**
 * The decision for a model call whose answer is capped at `maxTokens`. With `summarize: false`
 * (the model step itself) a `summary` session that would need folding is sent everything after
 * its summary, over budget: the summary unit runs first, so that happens only when nothing more
 * could be folded meanwhile.
 */
export function decideContext({ store, session, run, catalog, tools }: PlanInputs, maxTokens: number, summarize = true): ContextDecision {
  const settings = resolveContext(session.context);
  const budget = inputBudget({
    maxInputTokens: settings.maxInputTokens,
    contextTokens: contextTokensFor(catalog, session.model),
    maxTokens,
  });
  const fixed = fixedTokens(session.system, tools);
  const forMessages = messageBudget(budget, run.token_ratio || 1, fixed);
  const task = store.firstMessageMeta();
  const runTask = run.run_start_seq > 0 && run.run_start_seq !== task?.seq ? store.messageMeta(run.run_start_seq) : null;
  const pinned = [task, runTask].filter((m): m is MessageMeta => m !== null);
  const pinnedTokens = pinned.reduce((sum, m) => sum + m.tokens, 0);
  const call = (startSeq: number | null, windowTokens: number, summary: StoredSummary | null, overBudget: boolean): ContextDecision => ({
    kind: "call",
    startSeq,
    pinned,
    summary,
    estimatedTokens: fixed + pinnedTokens + windowTokens + (summary?.tokens ?? 0),
    budget,
    overBudget,
  });

  if (settings.strategy !== "summary") {
    const window = fitWindow(store.metaNewestFirst(0, { sentOnly: true }), {
      budget: forMessages,
      pinned,
      ...(settings.lastMessages ? { maxCount: settings.lastMessages } : {}),
    });
    return call(window.startSeq, window.tokens, null, window.overBudget);
  }

  const summary = store.latestSummary();
  const after = summary?.last_seq ?? task?.seq ?? 0;
  const metas = [...store.metaNewestFirst(after, { sentOnly: true })];
  const reserve = summaryMaxTokens(forMessages, maxTokens);
  const plan = planSummary(metas, {
    budget: forMessages,
    pinned,
    summaryTokens: summary?.tokens ?? 0,
    summaryReserve: reserve,
    foldCap: foldCap(forMessages, summary?.tokens ?? 0),
  });
  const tokensFrom = (startSeq: number | null) =>
    metas
      .filter((m) => startSeq !== null && m.seq >= startSeq && !pinned.some((p) => p.seq === m.seq))
      .reduce((sum, m) => sum + m.tokens, 0);
  if (plan.kind === "fits") return call(plan.startSeq, tokensFrom(plan.startSeq), summary, false);
  if (plan.kind === "over") return call(plan.startSeq, tokensFrom(plan.startSeq), summary, true);
  if (!summarize) {
    const oldest = metas.at(-1)?.seq ?? null;
    return call(oldest, tokensFrom(oldest), summary, true);
  }
  return { kind: "summarize", previous: summary, fromSeq: after + 1, throughSeq: plan.throughSeq, maxTokens: reserve };
}

/** The messages of a call: only the ones the decision chose are read, and only their images' bytes. */
export function callMessages(store: ContextReads, decision: Extract<ContextDecision, { kind: "call" }>): ModelMessage[] {
  const [taskMeta, runTaskMeta] = decision.pinned;
  const loaded = store.messagesForWindow(
    decision.startSeq,
    decision.pinned.map((m) => m.seq),
  );
  const bySeq = new Map<number, Message>(loaded.map((m) => [m.seq, m]));
  const window = decision.startSeq === null ? [] : loaded.filter((m) => m.seq >= decision.startSeq!);
  const messages = assemble({
    task: taskMeta ? (bySeq.get(taskMeta.seq) ?? null) : null,
    runTask: runTaskMeta ? (bySeq.get(runTaskMeta.seq) ?? null) : null,
    summary: decision.summary,
    window,
  });
  return withImageData(messages, (id) => store.imageData(id));
}
