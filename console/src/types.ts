/**
 * The API's types as the console uses them, all from the generated SDK, so a change to the
 * document that breaks the console breaks its type check.
 */
import { AUDIT_ACTIONS, type components } from "@agent-platform/sdk";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
export type TenantPolicy = Schemas["TenantPolicy"];
export type PolicyDecision = Schemas["PolicyDecision"];
export type SessionSummary = Schemas["SessionSummary"];
export type SessionStatus = Schemas["SessionStatus"];
export type Message = Schemas["Message"];
export type ContentBlock = Schemas["ContentBlock"];
export type Step = Schemas["Step"];
export type Usage = Schemas["Usage"];
export type Limits = Schemas["Limits"];
export type UsageRow = Schemas["UsageRow"];
export type UsageReport = Schemas["UsageReport"];
export type LimitOverrides = Schemas["LimitOverrides"];
export type Tenant = Schemas["Tenant"];
export type TenantListItem = Schemas["TenantListItem"];
export type AdminTenant = Schemas["AdminTenant"];
export type Agent = Schemas["Agent"];
export type AgentVersion = Schemas["AgentVersion"];
export type MemoryItem = Schemas["MemoryItem"];
/** A search's match: `score` higher for a better one, null when nothing was searched for. */
export type ScoredMemoryItem = Schemas["ScoredMemoryItem"];
export type MemoryVersion = Schemas["MemoryVersion"];
/** The agent and version a session was created from; null for a session without one. */
export type AgentPin = Schemas["AgentPin"];
export type EventFrame = Schemas["EventFrame"];
export type SnapshotData = Schemas["SnapshotEventData"];
export type ToolCallEventData = Schemas["ToolCallEventData"];
export type ToolCallStatus = Schemas["ToolCallStatus"];

/** A tool call as the list answers it, with who decided it (`decided_by`, `decided_at`, `decision`) once it was. */
export type ToolCall = Schemas["ToolCall"];

/** Every status, in the order a run passes through them; checked against the spec's union below. */
export const SESSION_STATUSES = [
  "idle",
  "queued",
  "running",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_subagents",
  "waiting_budget",
  "paused",
  "done",
  "failed",
  "cancelled",
] as const satisfies readonly SessionStatus[];

/** Fails to compile when the spec gains a status this list lacks. */
const allStatusesListed: [Exclude<SessionStatus, (typeof SESSION_STATUSES)[number]>] extends [never] ? true : false = true;
void allStatusesListed;

export const FINAL_STATUSES: readonly SessionStatus[] = ["done", "failed", "cancelled"];
/** Statuses with a run that a cancel stops (and that a bulk cancel reaches). */
export const ACTIVE_STATUSES: readonly SessionStatus[] = [
  "queued",
  "running",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_budget",
  "paused",
];
/** Statuses a pause applies to. */
export const PAUSABLE_STATUSES: readonly SessionStatus[] = ["queued", "running", "waiting_approval", "waiting_tool_output"];

export function isFinal(status: SessionStatus): boolean {
  return FINAL_STATUSES.includes(status);
}

export function isSessionStatus(value: string): value is SessionStatus {
  return (SESSION_STATUSES as readonly string[]).includes(value);
}

export type ApiKey = Schemas["ApiKey"];
export type Credential = Schemas["Credential"];
export type PutCredentialRequest = Schemas["PutCredentialRequest"];
export type ApiKeyScope = Schemas["ApiKeyScope"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookDelivery = Schemas["WebhookDelivery"];
export type NotificationType = Schemas["NotificationType"];
export type Schedule = Schemas["Schedule"];
export type Firing = Schemas["Firing"];
export type TenantSettings = Schemas["TenantSettings"];
export type CreateSessionBody = Schemas["CreateSessionRequest"];

/** The scopes a key may carry, in the order a form offers them; checked against the spec's union below. */
export const API_KEY_SCOPES = [
  "sessions:read",
  "sessions:write",
  "agents:write",
  "memory:read",
  "memory:write",
  "end_users:issue",
  "tenant:admin",
] as const satisfies readonly ApiKeyScope[];
const allScopesListed: [Exclude<ApiKeyScope, (typeof API_KEY_SCOPES)[number]>] extends [never] ? true : false = true;
void allScopesListed;

/** The status notifications an endpoint may receive; checked against the spec's union below. */
export const NOTIFICATION_TYPES = [
  "session.done",
  "session.failed",
  "session.cancelled",
  "session.waiting_approval",
  "session.waiting_tool_output",
  "session.credential_required",
  "session.waiting_budget",
  "agent.canary_rolled_back",
] as const satisfies readonly NotificationType[];
const allTypesListed: [Exclude<NotificationType, (typeof NOTIFICATION_TYPES)[number]>] extends [never] ? true : false = true;
void allTypesListed;

export type AuditEntry = Schemas["AuditEntry"];
export type AuditAction = Schemas["AuditAction"];
/** Every action, as the generated document lists them (the API's closed enum). */
export { AUDIT_ACTIONS };

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}
export type Dataset = Schemas["Dataset"];
export type DatasetWithItems = Schemas["DatasetWithItems"];
export type Eval = Schemas["Eval"];
export type EvalSummary = Schemas["EvalSummary"];
export type EvalComparison = Schemas["EvalComparison"];
