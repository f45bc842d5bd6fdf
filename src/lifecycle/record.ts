/**
 * The lifecycle's one record point: every session the retention sweep erases and every tenant
 * deletion that finishes passes through `recordLifecycle`. Today it logs; the audit log
 * (`session.deleted` by retention, `tenant.deleted`) is to write its entries here.
 */
import { log } from "../log";

export type LifecycleEvent =
  | { action: "session.deleted"; tenant_id: string; session_id: string; reason: "retention"; retention_days: number }
  | { action: "tenant.deleted"; tenant_id: string; started_at: number; finished_at: number };

export function recordLifecycle(event: LifecycleEvent): void {
  // AUDIT: the audit log's entry for this event is written here (actor: the platform itself).
  log("info", event.action === "tenant.deleted" ? "tenant_deleted" : "session_expired", { ...event });
}
