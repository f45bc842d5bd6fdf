/**
 * The TenantIndex Durable Object, one per tenant: a door, each RPC method one line into its concern under tenant-index/ (rpc.ts,
 * storage.md), in order: admission and keys, sessions, usage, config, webhooks, audit, idempotency, deletion; wired in src/lifecycle/.
 */
import type { AdmissionChange, AdmissionView, AdmissionViewInput, RateAsk } from "./admission-flow";
import { DurableObject } from "cloudflare:workers";
import { parseAuditContext as by } from "../audit/entry";
import type { AuditContext, AuditEntry, AuditListInput, AuditRecordInput } from "../audit/types";
import type { PartialLimits } from "../limits";
import type { NotificationAck } from "../notifications/types";
import type { NotificationDelivery, RedeliverResult } from "../notifications/delivery-store";
import type { CreateEndpointResult, NotificationEndpoint } from "../notifications/endpoint-store";
import type { Page, SessionSummary } from "../session-config/types";
import { storageFootprint, type StorageFootprint } from "../storage/object-storage";
import type { ApiKeyListing, ApiKeyRecord } from "./api-key-store";
import type { TenantIndexRpc } from "./rpc";
import type { DeletionProgress } from "./tenant-deletion";
import type * as T from "./types";
import type { RollupRow } from "../usage/rollup";
import * as admission from "./tenant-index/admission";
import * as admissionShards from "./tenant-index/admission-shards";
import { runAlarm } from "./tenant-index/alarm";
import * as audit from "./tenant-index/audit";
import * as config from "./tenant-index/config";
import { IndexCore } from "./tenant-index/core";
import * as deletion from "./tenant-index/deletion";
import * as endUsers from "./tenant-index/end-users";
import * as idempotency from "./tenant-index/idempotency";
import * as keys from "./tenant-index/api-keys";
import * as notifications from "./tenant-index/notifications";
import * as policy from "./tenant-index/policy";
import type { PolicyAnswer, TenantPolicy } from "./tool-policy";
import type { SessionEraser } from "./tenant-index/retention-sweep";
import * as sessions from "./tenant-index/sessions";
import * as across from "./tenant-index/across-shards";
import * as shardCalls from "./tenant-index/shards";
import * as shardSpend from "./tenant-index/shard-spend";
import type { SpendAnswer, SpendPush } from "./spend-exchange";
import type { Lease } from "./shards/leases";
import type { RateGrant } from "./rate-limit";
import type { ShardLayout } from "../shared/shard-layout";

/** A change of the tenant's config: every shard admitting its callers reads it again. */
const CONFIG: AdmissionChange = { config: true };

export class TenantIndex extends DurableObject<Cloudflare.Env> implements TenantIndexRpc {
  readonly #core: IndexCore;
  constructor(ctx: DurableObjectState, env: Cloudflare.Env, eraser: SessionEraser) {
    super(ctx, env);
    this.#core = new IndexCore(ctx, env, eraser);
  }
  async admitRequest(tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
    return admission.admitRequest(this.#core, tenantId, input);
  }
  async admissionView(tenantId: string, input: AdmissionViewInput): Promise<AdmissionView> {
    return admissionShards.admissionView(this.#core, tenantId, input ?? {});
  }
  async leaseRate(tenantId: string, asks: RateAsk[], now: number): Promise<RateGrant[]> {
    return admissionShards.leaseRate(this.#core, tenantId, asks, now);
  }
  /** Must not bind or register the tenant (see `peek`): the key is not verified yet. */
  async findApiKey(tenantId: string, keyId: string): Promise<ApiKeyRecord | null> {
    return this.#core.findApiKey(tenantId, keyId);
  }
  async admitApiKey(tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
    return admission.admitApiKey(this.#core, tenantId, keyId, input);
  }
  async admitExchangedToken(tenantId: string, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission> {
    return admission.admitExchangedToken(this.#core, tenantId, keyId, input);
  }
  async touchApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    return keys.touchApiKey(await this.#core.enter(tenantId), keyId, now);
  }
  async createApiKey(tenantId: string, record: ApiKeyRecord, actor?: AuditContext): Promise<void> {
    const host = await this.#core.enter(tenantId);
    // A key made with a daily budget: the shards read again whether a budget is set before the key is handed out.
    if ((record?.max_tokens_per_day ?? null) === null) return keys.createApiKey(host, tenantId, record, by(actor));
    return this.#told(tenantId, { keyId: record.key_id }, keys.createApiKey(host, tenantId, record, by(actor)));
  }
  async listApiKeys(tenantId: string, input: T.PageInput): Promise<Page<ApiKeyListing>> {
    return keys.listApiKeys(await this.#core.enter(tenantId), tenantId, input);
  }
  async revokeApiKey(tenantId: string, keyId: string, now: number, actor?: AuditContext): Promise<boolean> {
    return this.#told(tenantId, { keyId }, keys.revokeApiKey(await this.#core.enter(tenantId), tenantId, keyId, now, by(actor)));
  }
  async setApiKeyBudget(tenantId: string, keyId: string, maxTokensPerDay: number | null, actor?: AuditContext): Promise<boolean> {
    const host = await this.#core.enter(tenantId);
    return this.#told(tenantId, { keyId }, keys.setApiKeyBudget(host, tenantId, keyId, maxTokensPerDay, by(actor)));
  }
  async noteEventStream(tenantId: string, input: T.NoteStreamInput): Promise<T.StreamNote> {
    return keys.noteEventStream(await this.#core.enter(tenantId), tenantId, input);
  }
  async forgetEventStreams(tenantId: string, streamIds: string[]): Promise<number> {
    return keys.forgetEventStreams(await this.#core.enter(tenantId), streamIds);
  }
  async revokeEndUserTokens(tenantId: string, subject: string, now: number, actor?: AuditContext): Promise<number> {
    return this.#told(
      tenantId,
      { endUser: subject },
      endUsers.revokeEndUserTokens(await this.#core.enter(tenantId), subject, now, by(actor)),
    );
  }
  async reportSession(tenantId: string, report: T.SessionReport, batch?: unknown): Promise<T.ReportAck> {
    return sessions.reportSession(await this.#core.enter(tenantId), tenantId, report, batch);
  }
  async getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null> {
    return across.getSessionSummary(await this.#core.enter(tenantId), tenantId, sessionId);
  }
  async cancellableSessions(tenantId: string, sessionIds: string[]): Promise<string[]> {
    return across.cancellableSessions(await this.#core.enter(tenantId), tenantId, sessionIds);
  }
  async removeSession(tenantId: string, sessionId: string, actor?: AuditContext): Promise<boolean> {
    return across.removeSession(await this.#core.enter(tenantId), tenantId, sessionId, by(actor));
  }
  async listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>> {
    return across.listSessions(this.#core.read(tenantId), tenantId, input);
  }
  async acquireRun(tenantId: string, sessionId: string, maxConcurrent: number, now: number): Promise<T.RunSlot> {
    return across.acquireRun(await this.#core.enter(tenantId), tenantId, sessionId, maxConcurrent, now);
  }
  async admitRun(tenantId: string, input: T.AdmitRunInput): Promise<T.RunAdmission> {
    return across.admitRun(await this.#core.enter(tenantId), tenantId, input);
  }
  async admitSession(tenantId: string, input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission> {
    return across.admitSession(await this.#core.enter(tenantId), tenantId, input, report);
  }
  async releaseRun(tenantId: string, sessionId: string, failedStart?: boolean): Promise<void> {
    return across.releaseRun(await this.#core.enter(tenantId), tenantId, sessionId, failedStart);
  }
  async counts(tenantId: string): Promise<T.StatusCounts> {
    return across.counts(this.#core.read(tenantId), tenantId);
  }
  async cancelSessions(tenantId: string, filter: T.SessionFilter, actor?: AuditContext): Promise<T.CancelResult> {
    return across.cancelSessions(await this.#core.enter(tenantId), tenantId, filter, by(actor));
  }
  async tokensToday(tenantId: string, now: number): Promise<number> {
    return sessions.tokensToday(await this.#core.enter(tenantId), now);
  }
  async usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]> {
    return across.usage(this.#core.read(tenantId), tenantId, input);
  }
  async usageRollup(tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]> {
    return across.usageRollup(this.#core.read(tenantId), tenantId, input);
  }
  async setShards(tenantId: string, shards: number, actor?: AuditContext): Promise<ShardLayout> {
    return this.#told(tenantId, CONFIG, this.#flushed(shardCalls.setShards(await this.#core.enter(tenantId), tenantId, shards, by(actor))));
  }
  async shardLayouts(tenantId: string): Promise<ShardLayout[]> {
    return this.#core.read(tenantId)?.config().layouts ?? [];
  }
  async leaseSlots(tenantId: string, shard: string, seq: number, want: number, need?: number): Promise<Lease> {
    return shardCalls.leaseSlots(await this.#core.enter(tenantId), tenantId, shard, seq, want, need);
  }
  async shardSpend(tenantId: string, shard: string, push: SpendPush, admit?: T.AdmitRunInput): Promise<SpendAnswer> {
    return shardSpend.shardSpend(await this.#core.enter(tenantId), shard, push, admit);
  }
  async getLimitOverrides(tenantId: string): Promise<PartialLimits> {
    return config.limitOverrides(await this.#core.enter(tenantId));
  }
  async setLimitOverrides(tenantId: string, overrides: PartialLimits, actor?: AuditContext): Promise<T.TenantConfig> {
    const host = await this.#core.enter(tenantId);
    return this.#told(tenantId, CONFIG, this.#flushed(config.setLimitOverrides(host, tenantId, overrides, by(actor))));
  }
  async getConfig(tenantId: string): Promise<T.TenantConfig> {
    return config.configOrDefaults(this.#core.read(tenantId), this.#core.host, tenantId);
  }
  async setAllowedModels(tenantId: string, models: string[] | null, actor?: AuditContext): Promise<T.TenantConfig> {
    return this.#told(
      tenantId,
      CONFIG,
      this.#flushed(config.setAllowedModels(await this.#core.enter(tenantId), tenantId, models, by(actor))),
    );
  }
  async suspend(tenantId: string, actor?: AuditContext): Promise<T.CancelResult> {
    // The shards forget the config as they hear of the suspension (tellShardsSuspended), before any cancel.
    return this.#flushed(config.suspend(await this.#core.enter(tenantId), tenantId, by(actor)));
  }
  async unsuspend(tenantId: string, actor?: AuditContext): Promise<void> {
    return this.#flushed(config.unsuspend(await this.#core.enter(tenantId), tenantId, by(actor)));
  }
  async getSettings(tenantId: string): Promise<T.TenantSettings> {
    return config.settings(await this.#core.enter(tenantId));
  }
  async putSettings(tenantId: string, settings: T.TenantSettings, actor?: AuditContext): Promise<T.TenantSettings> {
    return this.#told(tenantId, CONFIG, config.putSettings(await this.#core.enter(tenantId), tenantId, settings, by(actor)));
  }
  async getPolicy(tenantId: string): Promise<TenantPolicy | null> {
    return policy.getPolicy(await this.#core.enter(tenantId));
  }
  async currentPolicy(tenantId: string, known: number | null): Promise<PolicyAnswer> {
    return policy.currentPolicy(await this.#core.enter(tenantId), known);
  }
  async putPolicy(tenantId: string, cedar: string, statements: number, actor?: AuditContext): Promise<TenantPolicy> {
    return policy.putPolicy(await this.#core.enter(tenantId), tenantId, cedar, statements, by(actor));
  }
  async deletePolicy(tenantId: string, actor?: AuditContext): Promise<boolean> {
    return policy.deletePolicy(await this.#core.enter(tenantId), tenantId, by(actor));
  }
  async getWebhookSecret(tenantId: string): Promise<T.SigningSecret> {
    return notifications.webhookSecret(await this.#core.enter(tenantId));
  }
  async rotateWebhookSecret(tenantId: string, actor?: AuditContext): Promise<T.SigningSecret> {
    return notifications.rotateWebhookSecret(await this.#core.enter(tenantId), tenantId, by(actor));
  }
  async getCallSigning(tenantId: string): Promise<T.CallSigning> {
    return notifications.callSigning(await this.#core.enter(tenantId));
  }
  async acceptNotifications(tenantId: string, batch: unknown): Promise<NotificationAck> {
    return notifications.takeNotifications(await this.#core.enter(tenantId), tenantId, batch);
  }
  async createWebhookEndpoint(tenantId: string, endpoint: T.NewNotificationEndpoint, actor?: AuditContext): Promise<CreateEndpointResult> {
    return notifications.createWebhookEndpoint(await this.#core.enter(tenantId), endpoint, by(actor));
  }
  async listWebhookEndpoints(tenantId: string, input: T.PageInput): Promise<Page<NotificationEndpoint>> {
    return notifications.listWebhookEndpoints(await this.#core.enter(tenantId), input);
  }
  async deleteWebhookEndpoint(tenantId: string, endpointId: string, actor?: AuditContext): Promise<boolean> {
    return notifications.deleteWebhookEndpoint(await this.#core.enter(tenantId), endpointId, by(actor));
  }
  async listWebhookDeliveries(tenantId: string, endpoint: string, input: T.DeliveryListInput): Promise<Page<NotificationDelivery> | null> {
    return notifications.listWebhookDeliveries(await this.#core.enter(tenantId), endpoint, input);
  }
  async redeliverWebhook(tenantId: string, endpointId: string, deliveryId: string, actor?: AuditContext): Promise<RedeliverResult> {
    return notifications.redeliverWebhook(await this.#core.enter(tenantId), endpointId, deliveryId, by(actor));
  }
  async recordAudit(tenantId: string, entries: readonly (AuditEntry | AuditRecordInput)[]): Promise<AuditEntry[]> {
    return audit.recordAudit(this.#core, await this.#core.enter(tenantId), tenantId, entries);
  }
  async listAuditLog(tenantId: string, input: AuditListInput): Promise<Page<AuditEntry>> {
    return audit.listAuditLog(this.#core.read(tenantId), input);
  }
  async beginIdempotent(tenantId: string, input: T.BeginIdempotentInput): Promise<T.IdempotencyBegin> {
    return idempotency.beginIdempotent(await this.#core.enter(tenantId), input);
  }
  async completeIdempotent(tenantId: string, input: T.CompleteIdempotentInput): Promise<boolean> {
    return idempotency.completeIdempotent(await this.#core.enter(tenantId), input);
  }
  async releaseIdempotent(tenantId: string, input: T.ReleaseIdempotentInput): Promise<boolean> {
    return idempotency.releaseIdempotent(await this.#core.enter(tenantId), input);
  }
  async deleteTenant(tenantId: string, now: number, actor?: AuditContext): Promise<DeletionProgress> {
    // A deletion begun suspends the tenant first, which the shards hear of at once (tellShardsSuspended).
    return deletion.deleteTenant(this.#core, await this.#core.enter(tenantId), tenantId, now, by(actor));
  }
  async deletionProgress(tenantId: string): Promise<DeletionProgress | null> {
    return deletion.deletionProgress(this.#core.read(tenantId), tenantId);
  }
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }
  /** The stages in tenant-index/alarm.ts; nothing before a tenant was entered here. */
  override async alarm(): Promise<void> {
    const tenantId = this.#core.binding.tenantId;
    if (tenantId && this.#core.migrated) await runAlarm(this.#core, tenantId);
  }
  /** The answer once the shards that admit the tenant's callers were told what the change made stale. */
  async #told<R>(tenantId: string, change: AdmissionChange, made: R | Promise<R>): Promise<R> {
    try {
      return await made;
    } finally {
      // Told even when the change failed after its write: a shard reads again what it need not have, at worst.
      if (this.#core.migrated) await admissionShards.tellAdmissionChanged(this.#core.host, tenantId, change);
    }
  }
  /** The answer once the platform's audit entries the change owes were handed over. */
  async #flushed<R>(change: R | Promise<R>): Promise<R> {
    const result = await change;
    await this.#core.platformAudit.flush();
    return result;
  }
}
