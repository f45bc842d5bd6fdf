/**
 * The agent platform's TypeScript SDK: the generated client and types, and one module per
 * helper (auth, paging, waiting, following the events stream, running a session to its end,
 * agents, evals, memory, end users, chat and MCP endpoints and a chat's history, tenant deletion).
 */
export { agentRef, exportAgent, importAgent, promoteCanary, setAlias } from "./agents.ts";
export { chatEndpoint, chatMessages, mcpEndpoint } from "./chat.ts";
export { AUDIT_ACTIONS, type AuditLogFilter, platformAuditLog, tenantAuditLog } from "./audit.ts";
export { bearerAuth, createPlatformClient, type Credential, type PlatformClient, type PlatformClientOptions } from "./client.ts";
export { endUsers, me } from "./end-users.ts";
export { type CredentialOwner, credentials } from "./credentials.ts";
export { EvalTimeoutError, evals, type RunEvalOptions } from "./evals.ts";
export { AnswerDraft, type EventFrame, followEvents, type FollowEventsOptions } from "./events.ts";
export { expectData, PlatformError, type Result } from "./errors.ts";
export type { components, operations, paths, webhooks } from "./generated/openapi.ts";
export { getMemoryItem, namespaceParam } from "./memory.ts";
export {
  type ApprovalDecision,
  type ApprovalHandler,
  clientTool,
  runSession,
  type RunSessionOptions,
  type SessionRun,
  type SessionUsage,
  type ToolCallEventData,
  type ToolHandler,
  type ToolHandlers,
  UnhandledToolError,
} from "./run.ts";
export type { FromSchema } from "./schema-types.ts";
export {
  deleteTenant,
  setTenantJurisdiction,
  setTenantShards,
  TenantDeletionTimeoutError,
  tenantStorage,
  waitForTenantDeleted,
} from "./tenants.ts";
export { allPages, iteratePages, MAX_PAGES, type Page } from "./pages.ts";
export type * from "./types.ts";
export { BudgetWaitError, FINAL_STATUSES, isFinal, waitForFinalStatus, waitForStatus, WaitTimeoutError, type WaitOptions } from "./wait.ts";
