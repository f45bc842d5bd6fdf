/**
 * What the tenant objects answer over RPC: the interfaces their namespaces are typed by
 * (src/env.ts), so a caller depends on these shapes and never on the classes. Every index call
 * names its tenant first; an index bound to another tenant throws.
 */
import type { AdmissionView, AdmissionViewInput, RateAsk } from "./admission-flow";
import type { SpendAnswer, SpendPush } from "./spend-exchange";
import type { Lease } from "./shards/leases";
import type { RateGrant } from "./rate-limit";
import type { ShardLayout } from "../shared/shard-layout";
import type { AuditContext, AuditEntry, AuditListInput, AuditRecordInput } from "../audit/types";
import type { ApiKeyRecord } from "../auth/api-keys";
import type { PartialLimits } from "../limits";
import type { RedeliverResult, NotificationDelivery } from "../notifications/delivery-store";
import type { CreateEndpointResult, NotificationEndpoint } from "../notifications/endpoint-store";
import type { NotificationAck } from "../notifications/types";
import type { Page, SessionSummary } from "../session-config/types";
import type { ApiKeyListing } from "./api-key-store";
import type { DeletionRecord } from "./registry-store";
import type { JurisdictionChange } from "./placement-store";
import type { Jurisdiction, Placement } from "../objects";
import type { StorageFootprint } from "../storage/object-storage";
import type { DeletionProgress } from "./tenant-deletion";
import type * as T from "./types";
import type { PolicyAnswer, TenantPolicy } from "./tool-policy";
import type { RollupRow } from "../usage/rollup";

/**
 * Every call that makes an administrative change takes `by`, who made it (AuditContext): the
 * change and its audit entry commit in one transaction. Without `by` the entry is still written,
 * with a null actor.
 */
export interface TenantIndexRpc {
  /** Suspension and the rate limit for one request of `input.bucket`, with the tenant's limits and settings. */
  admitRequest(tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission>;
  /**
   * For a shard that admits the tenant's callers: the tenant's state, and the key's record and the
   * end user's cut-off asked for (a key that names no record binds nothing; tenant-index/admission-shards.ts).
   */
  admissionView(tenantId: string, input: AdmissionViewInput): Promise<AdmissionView>;
  /** Parts of the tenant's own rate windows for a shard, counted as if that many requests came. */
  leaseRate(tenantId: string, asks: RateAsk[], now: number): Promise<RateGrant[]>;
  /**
   * Refuses every token of the end user `subject` issued at or before `now` (the cut-off that
   * `admitRequest` returns for it); audit-logged. Answers the cut-off.
   */
  revokeEndUserTokens(tenantId: string, subject: string, now: number, by?: AuditContext): Promise<number>;

  // --- API keys

  /** Called before the key is verified: it neither binds nor registers the tenant. */
  findApiKey(tenantId: string, keyId: string): Promise<ApiKeyRecord | null>;
  /**
   * The API-key path of a request in one round trip: the key's record, and the request admitted
   * (suspension, rate limit) in the same call only when the key stands, checked with the
   * gateway's own rule (`checkApiKeyRecord`), so a wrong secret never spends a rate budget. The
   * record is read from storage on every call: a revocation takes effect on the next request.
   */
  admitApiKey(tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission>;
  /**
   * The request of a token exchanged from an API key, in one round trip: the key's record, and
   * the request admitted only while the key stands (`exchangedKeyStands`), read from storage on
   * every call so that revoking the key ends its tokens at once.
   */
  admitExchangedToken(tenantId: string, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission>;
  touchApiKey(tenantId: string, keyId: string, now: number): Promise<boolean>;
  createApiKey(tenantId: string, record: ApiKeyRecord, by?: AuditContext): Promise<void>;
  listApiKeys(tenantId: string, input: T.PageInput): Promise<Page<ApiKeyListing>>;
  /** Revokes the key, then closes every event stream opened with it before answering. */
  revokeApiKey(tenantId: string, keyId: string, now: number, by?: AuditContext): Promise<boolean>;
  /** Sets a key's daily token budget, then wakes the sessions waiting on it; false when there is no such key. */
  setApiKeyBudget(tenantId: string, keyId: string, maxTokensPerDay: number | null, by?: AuditContext): Promise<boolean>;

  // --- event streams

  /**
   * Called by a session object before a new stream gets its first frame: refused when the stream's key no
   * longer stands, the tenant is suspended, or `max_streams_per_tenant` streams are open; noted
   * otherwise, so a later revocation or suspension finds it, with its deadline brought forward to
   * its key's expiry.
   */
  noteEventStream(tenantId: string, input: T.NoteStreamInput): Promise<T.StreamNote>;

  /** Called by a session object when streams it noted close; returns how many rows went. */
  forgetEventStreams(tenantId: string, streamIds: string[]): Promise<number>;

  // --- sessions

  /**
   * `applied` is false for a stale or repeated revision, or a removed session. The notifications
   * the session owes ride along when there are any (see `acceptNotifications`), so a status change
   * costs one call; a batch the index refuses is logged and answered, never fails the report.
   */
  reportSession(tenantId: string, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck>;
  getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null>;
  /** Of some session ids (at most `MAX_MCP_BATCH_MESSAGES`), those with a run going or admitted: what a cancellation can reach. */
  cancellableSessions(tenantId: string, sessionIds: string[]): Promise<string[]>;
  removeSession(tenantId: string, sessionId: string, by?: AuditContext): Promise<boolean>;
  listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>>;
  acquireRun(tenantId: string, sessionId: string, maxConcurrent: number, now: number): Promise<T.RunSlot>;
  /** A new run's admission in one round trip: the daily token budget first, then a slot as `acquireRun` takes it. */
  admitRun(tenantId: string, input: T.AdmitRunInput): Promise<T.RunAdmission>;
  /**
   * A new session's run admitted and its first report applied in one call, from the session object
   * once it wrote the session: `admitRun`'s budgets and slot, then `reportSession`'s row. A session
   * already listed was admitted before (asked again after a crash lost the answer): its report alone is applied.
   */
  admitSession(tenantId: string, input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission>;
  /**
   * Gives back the slot of a start, resume or approval that did not happen; `failedStart` (the
   * session object refused the start or failed) gives back its budget reservation too.
   */
  releaseRun(tenantId: string, sessionId: string, failedStart?: boolean): Promise<void>;
  counts(tenantId: string): Promise<T.StatusCounts>;

  // --- usage

  tokensToday(tenantId: string, now: number): Promise<number>;
  usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]>;
  /** Sums over a range of UTC days by the dimensions asked, always by model too (usage-rollup.ts). */
  usageRollup(tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]>;

  // --- limits, models and suspension

  getLimitOverrides(tenantId: string): Promise<PartialLimits>;
  /** Replaces the overrides as a whole and returns the resulting config. */
  setLimitOverrides(tenantId: string, overrides: PartialLimits, by?: AuditContext): Promise<T.TenantConfig>;
  getConfig(tenantId: string): Promise<T.TenantConfig>;
  /** Replaces the tenant's list of models as a whole (null: no narrowing); returns the config. */
  setAllowedModels(tenantId: string, models: string[] | null, by?: AuditContext): Promise<T.TenantConfig>;
  /** Admits no new request, cancels the active sessions and closes every event stream. */
  suspend(tenantId: string, by?: AuditContext): Promise<T.CancelResult>;
  unsuspend(tenantId: string, by?: AuditContext): Promise<void>;
  cancelSessions(tenantId: string, filter: T.SessionFilter, by?: AuditContext): Promise<T.CancelResult>;

  // --- webhook secret

  getWebhookSecret(tenantId: string): Promise<T.SigningSecret>;
  rotateWebhookSecret(tenantId: string, by?: AuditContext): Promise<T.SigningSecret>;
  /** For the session object, at each webhook call: the secrets to sign with and the allowed origins, in one call. */
  getCallSigning(tenantId: string): Promise<T.CallSigning>;

  // --- status webhooks

  /**
   * A session hands over the notifications it owes: each becomes a delivery per subscribed
   * endpoint (and one for the session's notify URL), delivered from the index's alarm. An event
   * id seen before adds nothing, so the session may repeat a hand-off whose answer it lost.
   */
  acceptNotifications(tenantId: string, batch: unknown): Promise<NotificationAck>;
  createWebhookEndpoint(tenantId: string, endpoint: T.NewNotificationEndpoint, by?: AuditContext): Promise<CreateEndpointResult>;
  listWebhookEndpoints(tenantId: string, input: T.PageInput): Promise<Page<NotificationEndpoint>>;
  /** Removes the endpoint and its delivery log; false when there is none with this id. */
  deleteWebhookEndpoint(tenantId: string, endpointId: string, by?: AuditContext): Promise<boolean>;
  /** The endpoint's deliveries, newest first; null when the tenant has no such endpoint. */
  listWebhookDeliveries(tenantId: string, endpointId: string, input: T.DeliveryListInput): Promise<Page<NotificationDelivery> | null>;
  /** Sends one of the endpoint's deliveries again, as a new delivery of the same event. */
  redeliverWebhook(tenantId: string, endpointId: string, deliveryId: string, by?: AuditContext): Promise<RedeliverResult>;

  // --- the tenant's own settings

  getSettings(tenantId: string): Promise<T.TenantSettings>;
  /** Replaces the settings as a whole; the next admission carries them to the gateway. */
  putSettings(tenantId: string, settings: T.TenantSettings, by?: AuditContext): Promise<T.TenantSettings>;

  // --- the tenant's tool policy (src/policy/)

  getPolicy(tenantId: string): Promise<TenantPolicy | null>;
  /** The current version, and the text unless `known` is that version: what a session object judges its next calls by. */
  currentPolicy(tenantId: string, known: number | null): Promise<PolicyAnswer>;
  /** Sets the policy the gateway validated (`statements` it counted, for the audit entry). */
  putPolicy(tenantId: string, cedar: string, statements: number, by?: AuditContext): Promise<TenantPolicy>;
  /** False when there was none. */
  deletePolicy(tenantId: string, by?: AuditContext): Promise<boolean>;

  // --- audit log

  /**
   * Records a change made elsewhere: an `AuditEntry` made with the change (its outbox), or a
   * change with who made it (`session.exported`, `tenant.deleted`). An entry id kept already adds
   * nothing, so a caller may repeat a call whose answer it lost. Platform actions are copied to
   * the platform's log. Returns the entries as kept.
   */
  recordAudit(tenantId: string, entries: readonly (AuditEntry | AuditRecordInput)[]): Promise<AuditEntry[]>;
  /** The tenant's entries, newest first. */
  listAuditLog(tenantId: string, input: AuditListInput): Promise<Page<AuditEntry>>;

  // --- tenant deletion (src/lifecycle/tenant-deletion.ts)

  /** Suspends the tenant and starts erasing all of it in the background; asked again, answers the progress. */
  deleteTenant(tenantId: string, now: number, by?: AuditContext): Promise<DeletionProgress>;
  /**
   * Spreads the sessions created from now on over `shards` shards (1: the index keeps them), as a
   * new generation; the sessions already made stay where they are. Refused (`ShardingRefused`)
   * when the generations would hold more than `MAX_TOTAL_SHARDS` shards. Audited in the platform's log.
   */
  setShards(tenantId: string, shards: number, by?: AuditContext): Promise<ShardLayout>;
  /** Every generation of the layout, oldest first; none for an index no tenant was entered in. Reads only. */
  shardLayouts(tenantId: string): Promise<ShardLayout[]>;
  /**
   * A shard's whole lease of run slots, asked with a number it wrote first (shards/leases.ts);
   * when the room cannot give `need` of it, the other shards' spare slots are taken back first.
   */
  leaseSlots(tenantId: string, shard: string, seq: number, want: number, need?: number): Promise<Lease>;
  /**
   * A shard's spending of the day and the reservations its runs hold (spend-exchange.ts), and with
   * `admit` a run of its judged against the daily budgets; answers the figures of everywhere else.
   */
  shardSpend(tenantId: string, shard: string, push: SpendPush, admit?: T.AdmitRunInput): Promise<SpendAnswer>;
  /** The deletion under way, or null (none asked, or finished: the registry then keeps its record). */
  deletionProgress(tenantId: string): Promise<DeletionProgress | null>;
  /** What the index's storage holds; reads only. */
  footprint(): Promise<StorageFootprint>;

  // --- idempotency

  beginIdempotent(tenantId: string, input: T.BeginIdempotentInput): Promise<T.IdempotencyBegin>;
  /** False when there was nothing in progress to complete (expired, or completed already). */
  completeIdempotent(tenantId: string, input: T.CompleteIdempotentInput): Promise<boolean>;
  /** Frees a begun key whose answer is not kept, so a retry runs at once. */
  releaseIdempotent(tenantId: string, input: T.ReleaseIdempotentInput): Promise<boolean>;
}

/** The single registry of every tenant, fed by each tenant's index on its first use. */
export interface TenantRegistryRpc {
  /** Insert-if-absent: the first time a tenant was seen stays. False: a deleted tenant, refused. */
  register(tenantId: string, now: number): Promise<boolean>;
  /** Records that the tenant's deletion began (insert-if-absent); it is listed until it finishes. */
  beginDeletion(tenantId: string, startedAt: number): Promise<DeletionRecord>;
  /** The tenant leaves the list for good; its deletion record keeps when it began and ended. */
  finishDeletion(tenantId: string, startedAt: number, finishedAt: number): Promise<DeletionRecord>;
  deletion(tenantId: string): Promise<DeletionRecord | null>;
  /** What the registry holds of the tenant: its row (0 after deletion) and its deletion record. */
  entryFootprint(tenantId: string): Promise<{ tenant_rows: number; deletion_rows: number }>;
  /** Whether the tenant was ever registered; reads only. */
  knows(tenantId: string): Promise<boolean>;
  /** The tenant's jurisdiction, and whether it is settled (the tenant holds data); reads only. */
  placement(tenantId: string): Promise<Placement>;
  /** Pins the tenant's objects to `jurisdiction` (null: none) while it holds no data; audited in the platform's log. */
  setJurisdiction(tenantId: string, jurisdiction: Jurisdiction | null, now: number, context: AuditContext): Promise<JurisdictionChange>;
  /** Tenants by id, ascending. */
  list(input: T.PageInput): Promise<Page<T.TenantEntry>>;
  /** The platform's copy of platform actions, handed over by each tenant's index; an id kept already adds nothing. */
  recordAudit(entries: readonly AuditEntry[]): Promise<void>;
  /** The platform's log, newest first (`tenant_id` narrows it to one tenant). */
  listAuditLog(input: AuditListInput): Promise<Page<AuditEntry>>;
}

/** The binding whose stubs offer this interface (src/env.ts). */
declare module "../env" {
  interface ObjectRpcs {
    TENANT_INDEX: TenantIndexRpc;
    TENANT_REGISTRY: TenantRegistryRpc;
  }
}
