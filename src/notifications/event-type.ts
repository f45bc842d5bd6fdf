/**
 * Which status changes notify, and as what. Pure. A notification follows from the status a
 * change actually reaches, never from the action that caused it: an `interrupt` (a new message
 * replacing a running run) goes from `running` to `running` and so tells no one it was
 * cancelled, by construction; a session that only passes through a status inside one change
 * still notifies for each status it was written with.
 */
import type { SessionStatus } from "../session-config/types";
import type { NotificationType } from "./types";

const NOTIFIED: Partial<Record<SessionStatus, NotificationType>> = {
  done: "session.done",
  failed: "session.failed",
  cancelled: "session.cancelled",
  waiting_approval: "session.waiting_approval",
  waiting_tool_output: "session.waiting_tool_output",
  waiting_budget: "session.waiting_budget",
};

/** The notification a change from `before` to `after` owes, or null: entering one of the six statuses. */
export function notificationFor(before: SessionStatus, after: SessionStatus): NotificationType | null {
  if (before === after) return null;
  return NOTIFIED[after] ?? null;
}
