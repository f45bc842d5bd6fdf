/**
 * The session as a notification carries it: the compact view at the moment of the change, with
 * the calls it waits on. Pure: the host passes the session, its run state and its open calls.
 */
import type { NotificationSession, WaitingToolCall } from "../../../notifications/types";
import { approvalDeadline } from "../loop/approval-expiry";
import type { RunState, StoredSession } from "../store/store";
import type { Toolbox } from "../tools/registry";
import type { ToolCall } from "../../../session-config/types";

export function notificationSession(
  session: StoredSession,
  run: RunState,
  openCalls: readonly ToolCall[],
  toolbox: Toolbox,
): NotificationSession {
  return {
    id: session.id,
    tenant_id: session.tenant_id,
    created_by: session.created_by,
    status: run.status,
    stop_reason: run.stop_reason,
    error: run.error,
    model: session.model,
    usage: run.usage,
    metadata: session.metadata,
    created_at: session.created_at,
    updated_at: run.updated_at,
    waiting_tool_calls: openCalls.flatMap((call): WaitingToolCall[] => {
      if (call.status !== "waiting_approval" && call.status !== "waiting_tool_output") return [];
      const deadline = approvalDeadline(call, toolbox);
      return [
        {
          id: call.id,
          name: call.name,
          status: call.status,
          approval_expires_at: deadline === null ? null : new Date(deadline).toISOString(),
        },
      ];
    }),
  };
}
