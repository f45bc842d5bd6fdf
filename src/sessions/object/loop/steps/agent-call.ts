/**
 * An `agent` tool call in the tool unit: checked (its input, the depth and count limits), noted
 * in `subagents` and made durable, then its child session started under the id derived from the
 * call. Starting is idempotent, so a restart between the note and the child's answer starts the
 * same child again and never a second one. The call then stays `running` until the child ends
 * (subagents/parent.ts gives its result); the run waits `waiting_subagents`, holding no run slot.
 */
import { BUILTIN_DEFAULT_LIMITS } from "../../../../limits";
import { ApiError } from "../../../../problems";
import { childSessionId } from "../../../../session-config/ids";
import { inStartTurn } from "../../../child-starts";
import { type ChildOf, planChild, startChild } from "../../../subagent-start";
import { runTainted } from "../../store/state";
import { toolSpanId, traceparentOf } from "../../engine/tracing";
import { type AgentToolSpec, type ToolCall, totalTokens } from "../../../../session-config/types";
import { StaleUnit, type StepScope, type UnitWriter } from "../../engine/unit-scope";
import { agentCallInput } from "../../tools/agent-tool";
import { markRunning } from "./mark-running";
import { sessionStub } from "../../../../objects";
import type { SessionRpc } from "../../rpc";
import { askTree } from "../../subagents/tree";
import { type ChildBudget, childBudget, type FamilySpend, reshare } from "../../subagents/budget-share";
import { sumUsage } from "../../store/subagents";
import { unfinishedAgentCalls } from "../../subagents/share-push";
import { budgetCostUsd } from "../../../../models/prices";
import type { StoredSession } from "../../store/store";

export type AgentCallProblem = { kind: "input"; error: string } | { kind: "depth"; max: number } | { kind: "count"; max: number };

/** Pure: why a call may not start a child (its input, then the depth, then the run's count), or null. */
export function agentCallProblem(
  input: unknown,
  depth: number,
  maxDepth: number,
  startedInRun: number,
  maxPerRun: number,
): AgentCallProblem | null {
  const parsed = agentCallInput(input);
  if (!parsed.ok) return { kind: "input", error: parsed.error };
  if (depth + 1 > maxDepth) return { kind: "depth", max: maxDepth };
  if (startedInRun >= maxPerRun) return { kind: "count", max: maxPerRun };
  return null;
}

export function problemText(problem: AgentCallProblem): string {
  switch (problem.kind) {
    case "input":
      return problem.error;
    case "depth":
      return `not started: agents may call agents at most ${problem.max} levels deep (max_agent_depth)`;
    case "count":
      return `not started: a run may start at most ${problem.max} agent sessions (max_subagents_per_run)`;
  }
}

/** Runs (or goes on with) one agent call; throws `StaleUnit` when the unit went stale meanwhile. */
export async function runAgentCall(
  scope: StepScope,
  call: ToolCall,
  finish: (w: UnitWriter, call: ToolCall, output: string, isError: boolean) => void,
): Promise<void> {
  const session = scope.requireSession();
  const spec = session.tools.find((tool): tool is AgentToolSpec => tool.type === "agent" && tool.name === call.name);
  const fail = (output: string) => scope.commit((w) => finish(w, call, output, true));
  if (!spec) return fail(`tool "${call.name}" cannot run`);
  let row = scope.store.subagent(call.id);
  if (!row) {
    const run = scope.store.run();
    // Sessions stored before these limits existed hold none: the defaults apply.
    const problem = agentCallProblem(
      call.input,
      session.depth ?? 0,
      session.limits.max_agent_depth ?? BUILTIN_DEFAULT_LIMITS.max_agent_depth,
      scope.store.subagentsInRun(run.run_start_seq),
      session.limits.max_subagents_per_run ?? BUILTIN_DEFAULT_LIMITS.max_subagents_per_run,
    );
    if (problem) return fail(problemText(problem));
    const childId = await childSessionId(session.id, call.id);
    // The tree's root counts the child before it is noted (a start asked again names the same child, counted once).
    const refused = await askTree(scope.env, session, { kind: "session", session_id: childId });
    if (refused) return fail(refused);
    // The note counts against the run's limit: it must outlive a crash before the child is asked.
    await markRunning(scope, call.id, true, (w) => w.store.insertSubagent(call.id, childId, run.run_start_seq, w.nowIso()));
    row = scope.store.subagent(call.id);
    if (!row) throw new StaleUnit();
  }
  // Started: the call waits for the child's end.
  if (row.started) return;
  const input = agentCallInput(call.input);
  if (!input.ok) return fail(input.error);
  const budget = familyShare(scope, session);
  if (!budget) return fail("not started: the session's budget is used up (max_tokens_per_session, max_cost_usd_per_session)");
  // The child's run joins the parent's trace under this call's span; both ids are stored or derived, so a restart passes the same.
  const runTrace = scope.store.run().trace;
  const traceparent = runTrace ? traceparentOf(runTrace, toolSpanId(runTrace, call.id)) : undefined;
  const parent: ChildOf = {
    tenantId: session.tenant_id,
    sessionId: session.id,
    createdBy: session.created_by,
    keyId: session.api_key_id ?? null,
    toolCallId: call.id,
    depth: session.depth ?? 0,
    // A child made before tree budgets names no root: its children count against none either.
    rootSessionId: session.parent ? (session.root_session_id ?? "") : session.id,
    ...(traceparent ? { traceparent } : {}),
    budget,
    tainted: runTainted(scope.store.run()),
    shard: session.shard ?? null,
  };
  // The tenant's starts take their turn on the isolate (child-starts.ts).
  const outcome = await inStartTurn(session.tenant_id, async () => {
    // The wait for a turn can last seconds: a child made after a cancel closed the call would
    // have only `cancelQuietly` to stop it, held nowhere, so none is made then. (A pause leaves
    // the call open: a child made then is found again on the resume, as below.)
    if (!scope.callOpen(call.id)) return STALE;
    const plan = await planChild(scope.env, parent, spec, row.session_id, input.text);
    if (!plan.ok) return { ok: false as const, error: plan.error };
    try {
      return { ok: true as const, child: await startChild(scope.env, session.tenant_id, plan, input.text) };
    } catch (error) {
      if (error instanceof ApiError && error.status < 500)
        return { ok: false as const, error: `the agent ${spec.agent} could not be started: ${error.detail}` };
      throw error;
    }
  });
  if ("stale" in outcome) throw new StaleUnit();
  if (!outcome.ok) return scope.commit((w) => forget(w, call, outcome.error, finish));
  const child = outcome.child;
  try {
    scope.commit((w) => {
      // Revision 0: any report the child sent meanwhile is newer and stands.
      const state = { status: child.status, stop_reason: child.stop_reason, revision: 0, usage: child.usage };
      if (w.store.recordChildState(call.id, state))
        w.emit("subagent", { tool_call_id: call.id, session_id: child.id, status: child.status, stop_reason: child.stop_reason });
    });
  } catch (error) {
    if (!(error instanceof StaleUnit)) throw error;
    // A cancel came while the child was being made, and may have looked for it before it existed:
    // a child whose call is closed is cancelled here. (After a pause the call stays open, and the
    // child is found again on the resume.)
    if (!scope.callOpen(call.id)) await cancelQuietly(scope, session.tenant_id, child.id);
    throw error;
  }
  // A sibling that ended while this child was being made left its unused share, which the push at its end could not give to a child not yet started.
  const { spent, ways } = familySpend(scope, session);
  const fresh = reshare(session.limits, spent, { tokens: totalTokens(child.usage), costUsd: 0 }, ways);
  if (fresh.max_tokens_per_session > budget.max_tokens_per_session) {
    const limits = { max_tokens_per_session: fresh.max_tokens_per_session };
    const stub: SessionRpc = sessionStub(scope.env, session.tenant_id, child.id);
    await stub.setLimits(limits).catch(() => {});
  }
}

/** The child's share of what the family has left of the session's budgets, split among the batch's open agent calls. */
function familyShare(scope: StepScope, session: StoredSession): ChildBudget | null {
  const { spent, ways } = familySpend(scope, session);
  return childBudget(session.limits, spent, ways);
}

/** What the family spent (as last reported) and how many agent calls of the batch are open. */
function familySpend(scope: StepScope, session: StoredSession): { spent: FamilySpend; ways: number } {
  const usage = sumUsage(scope.store.run().usage, scope.store.descendantUsage());
  const costUsd = budgetCostUsd(scope.config.prices, session.model, usage);
  const openAgentCalls = unfinishedAgentCalls(scope.store, session);
  return { spent: { tokens: totalTokens(usage), costUsd }, ways: openAgentCalls };
}

/** What a turn answers when the call closed while it waited. */
const STALE = { ok: false, stale: true } as const;

async function cancelQuietly(scope: StepScope, tenantId: string, childId: string): Promise<void> {
  const child: SessionRpc = sessionStub(scope.env, tenantId, childId);
  await child.cancel().catch(() => {});
}

/** A call whose child was never made: its note goes (it does not count against the run), and its result is the error. */
function forget(
  w: UnitWriter,
  call: ToolCall,
  error: string,
  finish: (w: UnitWriter, call: ToolCall, output: string, isError: boolean) => void,
): void {
  w.store.deleteSubagent(call.id);
  finish(w, call, error, true);
}
