/**
 * A sub-agent tree's budget, kept by its root (the session a caller created) for each of its runs:
 * the tree's sessions, the root included, against `max_sessions_per_tree`, and the model calls of
 * all of them against `max_model_calls_per_tree`. Depth and fan-out are limited per level and
 * multiply; this bounds the product. Every child session asks its root (`treeTake`) before it
 * starts a child and before each model call, and the root asks itself before it starts a child;
 * the root decides in one synchronous stretch of its own object, so concurrent asks cannot both
 * take the last place, and what it counted is stored, so a crash of any session of the tree
 * forgets nothing. The root's own model calls are its run's steps, stored already: a session
 * without children writes nothing more per call.
 */
import { BUILTIN_DEFAULT_LIMITS, type Limits } from "../../../limits";
import { log } from "../../../log";
import { sessionStub } from "../../../objects";
import type { SessionResult, TreeCount } from "../../../session-config/types";
import type { SessionStore, StoredSession, StoredTree } from "../store/store";

/** A session whose tree's root could not be asked before a model call asks again after this long. */
export const TREE_ASK_RETRY_MS = 5_000;

/** What a session of the tree asks its root for: a place for a child (named, so asking twice takes one), or a model call. */
export type TreeAsk = { kind: "session"; session_id: string } | { kind: "model_call" };
export type TreeLimit = "max_sessions_per_tree" | "max_model_calls_per_tree";
export type TreeAnswer = { ok: true } | { ok: false; limit: TreeLimit; max: number };

/**
 * Pure: the root's answer to `ask`, and the tree as it stands after (unchanged on a refusal, or a
 * child already counted). `ownCalls`: the root's own model calls in the run (its steps).
 */
export function treeDecision(
  tree: StoredTree,
  limits: Pick<Limits, TreeLimit>,
  ask: TreeAsk,
  ownCalls = 0,
): { answer: TreeAnswer; tree: StoredTree } {
  if (ask.kind === "session") {
    if (tree.children.includes(ask.session_id)) return { answer: { ok: true }, tree };
    const max = limits.max_sessions_per_tree;
    // The root is one of the tree's sessions.
    if (1 + tree.children.length >= max) return { answer: { ok: false, limit: "max_sessions_per_tree", max }, tree };
    return { answer: { ok: true }, tree: { ...tree, children: [...tree.children, ask.session_id] } };
  }
  const max = limits.max_model_calls_per_tree;
  if (tree.model_calls + ownCalls >= max) return { answer: { ok: false, limit: "max_model_calls_per_tree", max }, tree };
  return { answer: { ok: true }, tree: { ...tree, model_calls: tree.model_calls + 1 } };
}

/** The root's side: `ask` answered and counted, in one synchronous stretch. A session that is itself a child keeps no tree. */
export function takeInTree(store: SessionStore, ask: unknown): SessionResult<TreeAnswer> {
  const parsed = parseAsk(ask);
  if (!parsed) return { ok: false, reason: "invalid", detail: "not a tree ask" };
  const session = store.requireSession();
  if (session.parent) return { ok: false, reason: "invalid", detail: "a child session keeps no tree" };
  const { answer, tree } = treeDecision(store.tree(), treeLimits(session.limits), parsed, store.run().steps);
  if (answer.ok) store.putTree(tree);
  return { ok: true, value: answer };
}

/**
 * A root's own next model call, decided where it runs and counted by its step: null to go on, else
 * the refusal's text. A session that started no child in this run is no family: `max_steps_per_run`
 * alone bounds it, so a tenant that allows long runs is not cut short by a budget for trees.
 */
export function ownCallRefusal(store: SessionStore): string | null {
  const session = store.requireSession();
  const tree = store.tree();
  if (tree.children.length === 0) return null;
  const { answer } = treeDecision(tree, treeLimits(session.limits), { kind: "model_call" }, store.run().steps);
  return answer.ok ? null : refusalText(answer);
}

/** A root's count as its session resource shows it; null for a child, whose root keeps it. */
export function treeCount(store: SessionStore, session: StoredSession): TreeCount | null {
  if (session.parent) return null;
  const tree = store.tree();
  return { sessions: 1 + tree.children.length, model_calls: tree.model_calls + store.run().steps };
}

/**
 * A session's side: asks its tree's root (itself, for a root's children: the one place that decides) and
 * answers null to go on, or the refusal's text naming the limit. A child created before tree
 * budgets names no root and counts against none. A failed ask is thrown, for the caller to try again.
 */
export async function askTree(env: Cloudflare.Env, session: StoredSession, ask: TreeAsk): Promise<string | null> {
  const rootId = session.parent ? session.root_session_id : session.id;
  if (!rootId) return null;
  const answer = await sessionStub(env, session.tenant_id, rootId).treeTake(ask);
  if (!answer.ok) {
    // The root was erased: its tree is being cancelled; nothing more starts in it.
    if (answer.reason === "session_not_found") return "the tree's root session is gone";
    log("error", "tree_ask_refused", { tenant_id: session.tenant_id, session_id: session.id, root_id: rootId, reason: answer.reason });
    throw new Error(`the tree's root answered ${answer.reason}`);
  }
  return answer.value.ok ? null : refusalText(answer.value);
}

export function refusalText(answer: Exclude<TreeAnswer, { ok: true }>): string {
  return answer.limit === "max_sessions_per_tree"
    ? `not started: a tree of sub-agents may hold at most ${answer.max} sessions, its root included (max_sessions_per_tree)`
    : `the tree of sub-agents made its ${answer.max} model calls (max_model_calls_per_tree)`;
}

/** Sessions stored before these limits existed hold none: the defaults apply. */
function treeLimits(limits: Partial<Limits>): Pick<Limits, TreeLimit> {
  return {
    max_sessions_per_tree: limits.max_sessions_per_tree ?? BUILTIN_DEFAULT_LIMITS.max_sessions_per_tree,
    max_model_calls_per_tree: limits.max_model_calls_per_tree ?? BUILTIN_DEFAULT_LIMITS.max_model_calls_per_tree,
  };
}

function parseAsk(value: unknown): TreeAsk | null {
  if (typeof value !== "object" || value === null) return null;
  const ask = value as Record<string, unknown>;
  if (ask.kind === "model_call") return { kind: "model_call" };
  if (ask.kind === "session" && typeof ask.session_id === "string" && ask.session_id.length > 0 && ask.session_id.length <= 200)
    return { kind: "session", session_id: ask.session_id };
  return null;
}
