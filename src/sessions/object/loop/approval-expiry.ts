/**
 * Approvals that expire: a call of a tool with `approval_timeout_seconds` that is still waiting
 * for approval when its deadline passes is denied as "approval expired", exactly as a reviewer's
 * deny would be. The deadline counts from the call's creation (when it started to wait); a pause
 * does not stop it. Pure: the session object's alarm and `nextWakeAt` both ask these.
 */
import type { Toolbox } from "../tools/registry";
import type { ToolCall } from "../../../session-config/types";

/** The reason a denied call's result gives, and the notification and API show. */
export const APPROVAL_EXPIRED = "approval expired";
/** What the model sees as the call's result. */
export const APPROVAL_EXPIRED_OUTPUT = `denied: ${APPROVAL_EXPIRED}`;

type Waiting = Pick<ToolCall, "id" | "name" | "status" | "created_at">;

/** When the call's approval expires (epoch ms), or null when it is not waiting or has no timeout. */
export function approvalDeadline(call: Waiting, toolbox: Toolbox): number | null {
  if (call.status !== "waiting_approval") return null;
  const timeout = toolbox.get(call.name)?.approvalTimeoutMs;
  if (!timeout) return null;
  const created = Date.parse(call.created_at);
  return Number.isFinite(created) ? created + timeout : null;
}

/** Whether any tool of the toolbox has an approval timeout: without one no call's approval expires, and its calls need not be read. */
export function approvalsCanExpire(toolbox: Toolbox): boolean {
  for (const tool of toolbox.values()) if (tool.approvalTimeoutMs) return true;
  return false;
}

/** The earliest deadline among `calls`, or null when none has one. */
export function earliestApprovalDeadline(calls: readonly Waiting[], toolbox: Toolbox): number | null {
  let earliest: number | null = null;
  for (const call of calls) {
    const deadline = approvalDeadline(call, toolbox);
    if (deadline !== null && (earliest === null || deadline < earliest)) earliest = deadline;
  }
  return earliest;
}

/** The calls whose approval has expired at `now`, in the order given. */
export function expiredApprovals<T extends Waiting>(calls: readonly T[], toolbox: Toolbox, now: number): T[] {
  return calls.filter((call) => {
    const deadline = approvalDeadline(call, toolbox);
    return deadline !== null && deadline <= now;
  });
}
