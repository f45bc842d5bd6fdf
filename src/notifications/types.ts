/**
 * Status notifications: what a session tells its tenant's endpoints, and its own `notify_url`,
 * when it needs someone or its run ended. The shapes shared by the session object, which writes them to
 * its outbox, and the tenant index, which delivers them.
 */
import type { CredentialRequired } from "../egress/credentials";
import type { SessionStatus, StopReason, ToolCallStatus, Usage } from "../session-config/types";

export const NOTIFICATION_TYPES = [
  "session.done",
  "session.failed",
  "session.cancelled",
  "session.waiting_approval",
  "session.waiting_tool_output",
  "session.credential_required",
  "session.waiting_budget",
  "agent.canary_rolled_back",
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

export function isNotificationType(value: unknown): value is NotificationType {
  return typeof value === "string" && (NOTIFICATION_TYPES as readonly string[]).includes(value);
}

/** A call the session waits on, so a receiver knows what to approve or answer without a lookup. */
export interface WaitingToolCall {
  id: string;
  name: string;
  status: Extract<ToolCallStatus, "waiting_approval" | "waiting_tool_output">;
  /** When an unanswered approval is denied as expired; null when the tool sets no timeout. */
  approval_expires_at: string | null;
}

/**
 * The session as it stood at the change, compact: a notification is stored once per receiver
 * and sent again on every retry, so the session's system prompt, tools and context stay out.
 */
export interface NotificationSession {
  id: string;
  tenant_id: string;
  created_by: string;
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
  model: string;
  usage: Usage;
  metadata: Record<string, string> | null;
  created_at: string;
  updated_at: string;
  waiting_tool_calls: WaitingToolCall[];
}

/** What an agent's event tells (`agent.canary_rolled_back`): the alias, the canary removed and the numbers that removed it. */
export interface NotificationAgent {
  id: string;
  alias: string;
  /** The version the alias names, which now takes every session. */
  version: number;
  canary_version: number;
  reason: "min_score" | "max_failure_rate";
  runs: number;
  failures: number;
  failure_rate: number | null;
  mean_score: number | null;
  min_runs: number;
  min_score: number | null;
  max_failure_rate: number | null;
}

/** The body POSTed to a receiver. `id` is the event id: the same on every retry and redelivery. */
export interface Notification {
  id: string;
  type: NotificationType;
  created_at: string;
  tenant_id: string;
  session: NotificationSession;
  /** `session.credential_required` only: which credential a call could not use, and who must connect it. */
  credential?: CredentialRequired;
}

/** An agent's event, from its agent store: the agent in place of a session. */
export interface AgentNotification {
  id: string;
  type: Extract<NotificationType, `agent.${string}`>;
  created_at: string;
  tenant_id: string;
  agent: NotificationAgent;
}

/** What a session object hands its tenant index: its owed notifications, and where the session's own go. */
export interface NotificationBatch {
  session_id: string;
  notify_url: string | null;
  /** An agent store's batch names the agent in `session_id` (the deliveries' subject) and holds its events. */
  notifications: (Notification | AgentNotification)[];
}

export interface NotificationAck {
  /** Deliveries created (one per subscribed endpoint, and one for the notify URL); repeats add none. */
  deliveries: number;
}
