/**
 * The lifecycle's one record point: every session the retention sweep erases and every tenant
 * deletion that finishes passes through `recordLifecycle`, which logs it. Their audit entries are
 * written with the changes themselves: `session.deleted` (no actor) by the index's `removeSession`,
 * `tenant.deleted` (the platform admin who asked) by `deleteTenant` when the deletion begins.
 */
import { log } from "../log";

export type LifecycleEvent =
  | { action: "session.deleted"; tenant_id: string; session_id: string; reason: "retention"; retention_days: number }
  | { action: "tenant.deleted"; tenant_id: string; started_at: number; finished_at: number };

export function recordLifecycle(event: LifecycleEvent): void {
  log("info", event.action === "tenant.deleted" ? "tenant_deleted" : "session_expired", { ...event });
}
