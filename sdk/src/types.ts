/** Named types for the platform's schemas, so callers write `Session` rather than a path into `components`. */
import type { components } from "./generated/openapi.ts";

type Schemas = components["schemas"];

export type Session = Schemas["Session"];
export type SessionStatus = Schemas["SessionStatus"];
export type FinalStatus = Schemas["FinalStatus"];
export type CreateSessionRequest = Schemas["CreateSessionRequest"];
export type Tool = Schemas["Tool"];
export type Message = Schemas["Message"];
export type ContentBlock = Schemas["ContentBlock"];
export type ToolCall = Schemas["ToolCall"];
export type Problem = Schemas["Problem"];
export type ProblemCode = Schemas["ProblemCode"];
export type WebhookToolCall = Schemas["WebhookToolCall"];
export type WebhookToolResult = Schemas["WebhookToolResult"];
export type Agent = Schemas["Agent"];
export type AgentDefinition = Schemas["AgentDefinition"];
export type AgentPatch = Schemas["AgentPatch"];
export type AgentVersion = Schemas["AgentVersion"];
export type CanaryRequest = Schemas["CanaryRequest"];
export type CanaryState = Schemas["CanaryState"];
export type MemoryGrant = Schemas["MemoryGrant"];
export type MemoryItem = Schemas["MemoryItem"];
/** A credential in the vault (`Credential` names what authenticates the client). */
export type VaultCredential = Schemas["Credential"];
export type PutCredentialRequest = Schemas["PutCredentialRequest"];
export type ScoredMemoryItem = Schemas["ScoredMemoryItem"];
export type TenantSettings = Schemas["TenantSettings"];
export type AdminTenant = Schemas["AdminTenant"];
export type Jurisdiction = Schemas["Jurisdiction"];
export type ShardLayout = Schemas["ShardLayout"];
export type TenantDeletion = Schemas["TenantDeletion"];
export type TenantStorage = Schemas["TenantStorage"];
export type TracesSettings = Schemas["TracesSettings"];
export type AuditEntry = Schemas["AuditEntry"];
export type AuditAction = Schemas["AuditAction"];
/** `GET /v1/tenant/usage` and `GET /v1/admin/usage`: rows by the asked dimensions, and totals. */
export type UsageReport = Schemas["UsageReport"];
export type UsageRow = Schemas["UsageRow"];
/** A chat message as `GET /v1/agents/{agent_id}/chat/{id}/messages` gives it: the AI SDK's `UIMessage`. */
export type ChatUIMessage = Schemas["ChatUIMessage"];
export type EndUserTokenRequest = Schemas["EndUserTokenRequest"];
export type EndUserToken = Schemas["EndUserToken"];
export type EndUserScope = Schemas["EndUserScope"];
/** `GET /v1/me`: who a credential is. */
export type Me = Schemas["Me"];

/** A session whose run has ended. */
export type FinishedSession = Session & { status: FinalStatus };
export type Dataset = Schemas["Dataset"];
export type DatasetItem = Schemas["DatasetItem"];
export type Scorer = Schemas["Scorer"];
export type Eval = Schemas["Eval"];
export type EvalItem = Schemas["EvalItem"];
export type EvalComparison = Schemas["EvalComparison"];
export type CreateEvalRequest = Schemas["CreateEvalRequest"];
