/**
 * Decisions on a waiting tool call (an approval, a deny, a client's output, an expiry): each
 * checked, given a run slot when it lets the run go on, and applied in one transaction.
 */
import { parseAuditContext } from "../../../audit/entry";
import type { AuditContext } from "../../../audit/types";
import { log } from "../../../log";
import { redactText } from "../../../shared/redaction/redact";
import { detectorsFor } from "../../../shared/redaction/settings";
import { openCallsState } from "../engine/tool-results";
import { APPROVAL_EXPIRED, APPROVAL_EXPIRED_OUTPUT, approvalsCanExpire, expiredApprovals } from "../loop/approval-expiry";
import type { SessionStore } from "../store/store";
import { A2A_MAX_ANSWER_CHARS } from "../store/remote-tasks";
import { cutOutput } from "../tools/cut-output";
import { mayAccess, type SessionViewer } from "../../viewer";
import { type SessionResult, SYSTEM_DECIDER, type ToolCall, type ToolCallStatus, WAITING_STATUSES } from "../../../session-config/types";
import { type Answer, type Failure, SESSION_GONE, SHOWN } from "./answers";
import type { ControlHost } from "./host";

type DecisionHost = Pick<
  ControlHost,
  "store" | "slots" | "audit" | "toolbox" | "requireSession" | "nowIso" | "transaction" | "emit" | "continueRun" | "finishCall"
>;

/** The status a decision gives the call: fixed, or from the call (an approved client tool waits for its output). */
export type NextStatus = ToolCallStatus | ((call: ToolCall) => ToolCallStatus);

/**
 * Applies a decision on a waiting call. When it lets the run go on, the session needs a run
 * slot again (waiting held none): without a free one it goes `queued` rather than refusing.
 */
export async function applyDecision(
  engine: DecisionHost,
  callId: string,
  expected: ToolCallStatus,
  next: NextStatus,
  apply: (call: ToolCall) => void,
): Promise<SessionResult<null>> {
  const { store } = engine;
  const found = waitingCall(store, callId, expected);
  if (!found.ok) return found;
  const after = typeof next === "function" ? next(found.call) : next;
  const state = openCallsState(
    store.openToolCalls().map((c) => (c.id === callId ? { id: c.id, status: after } : c)),
    store.callsWaitingOnChildren(),
  );
  const status = store.run().status;
  const needsSlot = (state === "runnable" || state === "complete") && WAITING_STATUSES.includes(status);
  // Decided or cancelled by someone else while the index was asked.
  const refusal = await engine.slots.goOn<Failure>({
    needed: needsSlot,
    stands: () => {
      const again = waitingCall(store, callId, expected);
      return again.ok ? null : again;
    },
    go: (runnable) =>
      engine.transaction(() => {
        apply(store.toolCall(callId)!);
        engine.emit("tool_call", store.toolCall(callId));
        engine.continueRun(runnable);
      }),
  });
  return refusal ?? { ok: true, value: null };
}

/** A decision on a waiting call; with `viewer`, only for a caller the access rule lets see the session. */
async function decide(
  host: DecisionHost,
  viewer: SessionViewer | null,
  callId: string,
  expected: ToolCallStatus,
  next: NextStatus,
  apply: (call: ToolCall) => void,
): Promise<Answer> {
  if (viewer && !mayAccess(viewer, host.requireSession())) return SESSION_GONE;
  // The owner must not release what the tenant's policy held (a hold on end users' calls, say).
  if (viewer && !viewer.seesAll && host.store.toolCall(callId)?.policy?.decision === "require_approval")
    return { ok: false, reason: "decision_needs_admin" };
  const applied = await applyDecision(host, callId, expected, next, apply);
  return applied.ok ? SHOWN : applied;
}

/** `decidedBy`: the subject of the principal who approved, recorded on the call. */
export function approve(
  host: DecisionHost,
  callId: string,
  decidedBy: string | null,
  viewer: SessionViewer | null,
  by: AuditContext | undefined,
): Promise<Answer> {
  const context = parseAuditContext(by);
  const approved = (call: ToolCall): ToolCallStatus =>
    host.toolbox().get(call.name)?.kind === "client" ? "waiting_tool_output" : "pending";
  return decide(host, viewer, callId, "waiting_approval", approved, (call) => {
    host.store.setToolCallStatus(call.id, approved(call), host.nowIso());
    host.store.recordDecision(call.id, decidedBy, "approved", host.nowIso());
    recordDecisionEntry(host, "tool_call.approved", call, context);
  });
}

/** `decidedBy`: the subject of the principal who denied, recorded on the call. */
export function deny(
  host: DecisionHost,
  callId: string,
  reason: string | null,
  decidedBy: string | null,
  viewer: SessionViewer | null,
  by: AuditContext | undefined,
): Promise<Answer> {
  const context = parseAuditContext(by);
  // A person wrote it: redacted as user input once, before the tool result and the audit log both get it.
  const said = reason ? redactText(reason, detectorsFor(host.store.run().redaction, "user_input")) : null;
  return decide(host, viewer, callId, "waiting_approval", "error", (call) => {
    const text = said ? `denied by a reviewer: ${said}` : "denied by a reviewer";
    host.finishCall(call, text, true);
    host.store.recordDecision(call.id, decidedBy, "denied", host.nowIso());
    recordDecisionEntry(host, "tool_call.denied", call, context, said);
  });
}

/**
 * A client tool's output, given for a call that waits for it. For an `a2a` call whose remote task
 * asked for input it is the answer: the call runs again to send it on that task (an error output
 * ends the call instead).
 */
export function submitToolOutput(
  host: DecisionHost,
  callId: string,
  output: string,
  isError: boolean,
  viewer: SessionViewer | null,
): Promise<Answer> {
  const remote = host.store.remoteTask(callId);
  if (remote && !isError) {
    return decide(host, viewer, callId, "waiting_tool_output", "pending", (call) => {
      // Cut like every tool output, and kept under a value's size whatever the tenant's limit.
      const limit = Math.min(host.requireSession().limits.max_tool_output_chars, A2A_MAX_ANSWER_CHARS);
      host.store.putRemoteTask(call.id, { ...remote, answer: cutOutput(output, limit) });
      host.store.setToolCallStatus(call.id, "pending", host.nowIso());
    });
  }
  return decide(host, viewer, callId, "waiting_tool_output", isError ? "error" : "done", (call) => {
    host.finishCall(call, output, isError);
  });
}

/** Whether a call waits for an approval past its deadline (`expireApprovals` has work). */
export function hasExpiredApprovals(engine: Pick<ControlHost, "store" | "toolbox">): boolean {
  return approvalsCanExpire(engine.toolbox()) && expiredApprovals(engine.store.openToolCalls(), engine.toolbox(), Date.now()).length > 0;
}

/**
 * Denies every call whose approval expired, each exactly as a reviewer's deny (which may take
 * a run slot, or make the session `queued`). The alarm that runs this was set for the deadline.
 */
export async function expireApprovals(engine: DecisionHost): Promise<void> {
  const { store } = engine;
  for (const call of expiredApprovals(store.openToolCalls(), engine.toolbox(), Date.now())) {
    const result = await applyDecision(engine, call.id, "waiting_approval", "error", (waiting) => {
      engine.finishCall(waiting, APPROVAL_EXPIRED_OUTPUT, true);
      store.recordDecision(waiting.id, SYSTEM_DECIDER, "expired", engine.nowIso());
      // Nobody decided: the entry names no actor.
      recordDecisionEntry(engine, "tool_call.expired", waiting, undefined);
    });
    if (result.ok) {
      const session = engine.requireSession();
      log("info", "approval_expired", {
        tenant_id: session.tenant_id,
        session_id: session.id,
        tool_call_id: call.id,
        tool: call.name,
        reason: APPROVAL_EXPIRED,
      });
    }
  }
}

function waitingCall(store: SessionStore, callId: string, expected: ToolCallStatus): { ok: true; call: ToolCall } | Failure {
  const call = store.toolCall(callId);
  if (!call) return { ok: false, reason: "tool_call_not_found" };
  if (call.status !== expected) return { ok: false, reason: "tool_call_not_waiting", status: call.status, expected };
  return { ok: true, call };
}

/** The audit entry of a decision, written inside the decision's transaction (the session's audit outbox). */
export function recordDecisionEntry(
  engine: Pick<ControlHost, "audit" | "requireSession">,
  action: "tool_call.approved" | "tool_call.denied" | "tool_call.expired",
  call: ToolCall,
  by: AuditContext | undefined,
  reason: string | null = null,
): void {
  const session = engine.requireSession();
  const details = { session_id: session.id, tool: call.name, ...(reason ? { reason } : {}) };
  engine.audit.record(session.tenant_id, by, { action, target: { type: "tool_call", id: call.id }, details }, Date.now());
}
