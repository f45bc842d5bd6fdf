/** The session as every response shows it, from its stored settings and run state. */
import { maskToolSpecs } from "../../../session-config/masking";
import type { SessionStore, StoredSession } from "../store/store";
import type { Session } from "../../../session-config/types";
import { treeCount } from "../subagents/tree";
import type { RunState } from "../store/store";
import { costOf, priceFor, type PriceTable } from "../../../models/prices";
import { finalText, sumUsage } from "../subagents/report";

function budgetWaitView(run: RunState): Session["budget_wait"] {
  const wait = run.status === "waiting_budget" ? (run.budget_wait ?? null) : null;
  if (wait === null) return null;
  return { budget: wait.budget, resumes_at: wait.resume_at === null ? null : new Date(wait.resume_at).toISOString() };
}

/** MCP header values masked; what the loop and the traces keep for themselves left out. */
export function sessionView(stored: StoredSession, store: SessionStore, prices: PriceTable): Session {
  // The depth is the loop's to know, the agent's name the traces'; no response shows them.
  const { depth: _depth, api_key_id: _apiKeyId, agent_name: _agentName, root_session_id: _root, shard: _shard, ...session } = stored;
  const run = store.run();
  const runSchema = store.runOutputSchema();
  const descendants = store.descendantUsage();
  return {
    ...session,
    notify_url: session.notify_url ?? null,
    agent: session.agent ?? null,
    forked_from: session.forked_from ?? null,
    parent: session.parent ?? null,
    memory: session.memory ?? null,
    reasoning: session.reasoning ?? null,
    // Before any run, the session's own schema; after, the one the run had.
    output_schema: runSchema === undefined ? (session.output_schema ?? null) : runSchema,
    output: run.status === "done" ? store.runOutput() : null,
    answer: run.status === "done" ? answerOf(store) : null,
    // The tree is priced at this session's model, as its budgets are: exact while its children share it.
    cost_usd: costOf(sumUsage(run.usage, descendants), priceFor(prices, stored.model)),
    tools: maskToolSpecs(session.tools),
    status: run.status,
    stop_reason: run.stop_reason,
    error: run.error,
    usage: { ...run.usage, subagents: descendants },
    // Sessions created before context settings existed stored none: they use `auto`.
    context: session.context ?? { strategy: "auto" },
    queued_messages: store.queuedMessages(),
    budget_wait: budgetWaitView(run),
    tree: treeCount(store, stored),
    title: store.title(),
    updated_at: run.updated_at,
  };
}

/** A run ended `done` ends with the model's answer: the newest message's text, if it has any. */
function answerOf(store: SessionStore): string | null {
  const text = finalText(store.latestMessages(1));
  return text === "" ? null : text;
}
