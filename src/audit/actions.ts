/**
 * The closed list of administrative changes the audit log records (API.md, "Audit log"). A
 * change not named here is not an administrative one; adding one is a contract change.
 */
export const AUDIT_ACTIONS = [
  "api_key.created",
  "api_key.revoked",
  "api_key.updated",
  "webhook_secret.rotated",
  "settings.updated",
  "policy.updated",
  "policy.deleted",
  "webhook.created",
  "webhook.deleted",
  "delivery.redelivered",
  "tool_call.approved",
  "tool_call.denied",
  "tool_call.expired",
  "session.deleted",
  "session.limits_updated",
  "session.exported",
  "sessions.cancelled_in_bulk",
  "schedule.created",
  "schedule.updated",
  "schedule.deleted",
  "agent.created",
  "agent.updated",
  "agent.archived",
  "agent.alias_set",
  "agent.alias_deleted",
  "dataset.created",
  "dataset.updated",
  "dataset.deleted",
  "eval.created",
  "eval.cancelled",
  "agent.canary_promoted",
  "agent.canary_rolled_back",
  "memory.deleted",
  "tenant.limits_updated",
  "tenant.models_updated",
  "tenant.suspended",
  "tenant.unsuspended",
  "tenant.deleted",
  "tenant.jurisdiction_set",
  "tenant.shards_set",
  "end_user.tokens_revoked",
  "credential.put",
  "credential.deleted",
  "credential.refresh_failed",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The changes only a platform admin makes: besides the tenant's own log, each is copied to the
 * platform's log, so `GET /v1/admin/audit-log` lists them across tenants.
 */
export const PLATFORM_ACTIONS: ReadonlySet<AuditAction> = new Set([
  "tenant.limits_updated",
  "tenant.models_updated",
  "tenant.suspended",
  "tenant.unsuspended",
  "tenant.deleted",
  "tenant.jurisdiction_set",
  "tenant.shards_set",
]);

const ACTION_SET: ReadonlySet<string> = new Set(AUDIT_ACTIONS);

export function isAuditAction(value: unknown): value is AuditAction {
  return typeof value === "string" && ACTION_SET.has(value);
}
