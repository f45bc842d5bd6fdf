/**
 * The TenantIndex Durable Object, one per tenant: session index, usage, run slots, API keys,
 * limits and suspension, the tenant's settings, rate limiting, idempotency records, the
 * webhook secrets, and status webhooks (endpoints, the delivery log, and delivery itself, from
 * the alarm), the retention sweep and the tenant's deletion (src/lifecycle/). A thin facade: it binds the tenant and admits requests, and each other call goes
 * to its concern under tenant-index/; what each answers is documented on `TenantIndexRpc`
 * (rpc.ts). Storage: see storage.md.
 */
import { DurableObject } from "cloudflare:workers";
import { log } from "../log";
import type { Page, SessionSummary } from "../session-config/types";
import { loadConfig } from "../config";
import type { PartialLimits } from "../limits";
import { admit, admitInput } from "./admission";
import * as apiKeys from "./api-key-store";
import { checkApiKeyRecord, exchangedKeyStands, keyScopes } from "../auth/api-keys";
import * as idempotency from "./idempotency-store";
import { RateLimiter } from "./rate-limit";
import { grantedSessions, grantQueuedSlots, nextPumpAt, queueLength } from "./run-slots";
import type { TenantIndexRpc } from "./rpc";
import { TenantBinding, TenantGoneError } from "./tenant-binding";
import { purgeStorage, storageFootprint, type StorageFootprint } from "../storage/object-storage";
import { effectiveRetentionDays } from "../session-config/retention";
import { nextExpiry, retryGapMs, sweepExpired, type RetentionRule } from "../lifecycle/sweep";
import { recordLifecycle } from "../lifecycle/record";
import * as deletion from "../lifecycle/tenant-deletion";
import { describeError } from "../log";
import * as sessionRows from "./sessions-store";
import { type ConfigState, readConfigState, tenantConfigView } from "./tenant-config";
import { sessionStub, tenantRegistryStub } from "../objects";
import type * as T from "./types";
import type { RollupRow } from "./usage-rollup";
import { migrate } from "../storage/migrations";
import { AlarmClock } from "../storage/alarm-clock";
import { TENANT_INDEX_MIGRATIONS } from "./migrations";
import { requireNow, requireString } from "../shared/validate";
import { readSigningSecret, rotateWebhookSecret, signingSecrets } from "./signing-secret";
import { readAllowedModels } from "./tenant-models";
import type { NotificationAck } from "../notifications/types";
import { nextDueAt, pruneDeliveries, type RedeliverResult, type NotificationDelivery } from "../notifications/delivery-store";
import { deliverDue } from "../notifications/dispatcher";
import type { CreateEndpointResult, NotificationEndpoint } from "../notifications/endpoint-store";
import * as keyCalls from "./tenant-index/api-keys";
import * as endUserCalls from "./tenant-index/end-users";
import * as configCalls from "./tenant-index/config";
import type { IndexHost } from "./tenant-index/host";
import * as sessionCalls from "./tenant-index/sessions";
import * as notificationCalls from "./tenant-index/notifications";
import { PLATFORM_ACTIONS } from "../audit/actions";
import { auditEntry, newAuditId, parseAuditChange, parseAuditContext, parseAuditEntry } from "../audit/entry";
import { AuditOutbox } from "../audit/outbox";
import { appendAuditEntry, listAuditEntries, parseAuditListInput } from "../audit/store";
import type { AuditChange, AuditContext, AuditEntry, AuditListInput, AuditRecordInput } from "../audit/types";

export class TenantIndex extends DurableObject<Cloudflare.Env> implements TenantIndexRpc {
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  #limiter = new RateLimiter();
  /** Read once, then kept in step by this object's own writes (it is the only writer). */
  #config: ConfigState | null = null;
  /** What the concerns under tenant-index/ are given of this object. */
  readonly #host: IndexHost;
  /** Platform actions owed to the registry's log. */
  readonly #platformAudit: AuditOutbox;

  /** Whether the tables exist: only once a tenant was entered, never for a lookup alone. */
  #migrated = false;
  /** The registry refused this tenant (deleted): admission answers "suspended" without asking again. */
  #gone = false;
  /** The retention sweep looks no sooner than this (it left rows that their objects kept). */
  #sweepNotBefore = 0;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#binding = new TenantBinding(ctx.storage.kv, (tenantId, createdAt) => tenantRegistryStub(env).register(tenantId, createdAt));
    this.#host = {
      env,
      get sql() {
        return ctx.storage.sql;
      },
      get kv() {
        return ctx.storage.kv;
      },
      transaction: (fn) => ctx.storage.transactionSync(fn),
      config: () => this.#readConfig(),
      configChanged: () => void (this.#config = null),
      createdAt: () => this.#binding.createdAt,
      wakeSoon: () => this.#wakeSoon(),
      wakeBy: (at) => this.#wakeBy(at),
      retention: () => this.#retention(),
      schedulePump: () => this.#schedulePump(),
      audit: (by, change) => void this.#audit(by, change),
    };
    this.#platformAudit = new AuditOutbox(
      () => ctx.storage.sql,
      (entries) => tenantRegistryStub(env).recordAudit(entries),
    );
    // An index that was never entered (an unknown tenant named by an unverified key) stays empty:
    // looking it up costs a read and writes nothing.
    if (this.#binding.bound) {
      void ctx.blockConcurrencyWhile(async () => {
        this.#migrate();
        // A deletion under way goes on from any wake, even if its alarm was lost (see purgeStorage).
        if (deletion.readDeletion(ctx.storage.kv)) await this.#alarms.sync(Date.now());
      });
    }
  }

  async admitRequest(tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
    // A deleted tenant's valid token is refused as a suspended tenant's is, and binds nothing.
    if (this.#gone && !this.#binding.bound) return { ok: false, code: "suspended" };
    try {
      await this.#enter(tenantId);
    } catch (error) {
      if (!(error instanceof TenantGoneError)) throw error;
      this.#gone = true;
      return { ok: false, code: "suspended" };
    }
    return endUserCalls.withRevocation(this.#host, admit(this.#readConfig(), this.#limiter, admitInput(input)), input.endUser);
  }

  async revokeEndUserTokens(tenantId: string, subject: string, now: number, by?: AuditContext): Promise<number> {
    return endUserCalls.revokeEndUserTokens(await this.#enter(tenantId), subject, now, by);
  }

  // --- API keys

  /** Must not bind or register the tenant (see `peek`): the key is not verified yet. */
  async findApiKey(tenantId: string, keyId: string): Promise<apiKeys.ApiKeyRecord | null> {
    return this.#findApiKey(tenantId, requireString("keyId", keyId));
  }

  async admitApiKey(tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
    const secretHash = requireString("secretHash", input.secretHash);
    // The key's scopes, from its record: the gateway does not know them before this call.
    return this.#admitWithKey(
      tenantId,
      keyId,
      input,
      (record, id, now) => checkApiKeyRecord({ tenantId, keyId: id }, secretHash, record, now) === null,
      keyScopes,
    );
  }

  async admitExchangedToken(tenantId: string, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission> {
    // The token's own scopes (in `input`): it may have been granted fewer than its key holds.
    return this.#admitWithKey(tenantId, keyId, input, (record, id, now) => exchangedKeyStands(record, { tenantId, keyId: id }, now));
  }

  async touchApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    return keyCalls.touchApiKey(await this.#enter(tenantId), keyId, now);
  }

  async createApiKey(tenantId: string, record: apiKeys.ApiKeyRecord, by?: AuditContext): Promise<void> {
    keyCalls.createApiKey(await this.#enter(tenantId), tenantId, record, parseAuditContext(by));
  }

  async listApiKeys(tenantId: string, input: T.PageInput): Promise<Page<apiKeys.ApiKeyListing>> {
    return keyCalls.listApiKeys(await this.#enter(tenantId), tenantId, input);
  }

  async revokeApiKey(tenantId: string, keyId: string, now: number, by?: AuditContext): Promise<boolean> {
    return keyCalls.revokeApiKey(await this.#enter(tenantId), tenantId, keyId, now, parseAuditContext(by));
  }

  async noteEventStream(tenantId: string, input: T.NoteStreamInput): Promise<T.StreamNote> {
    return keyCalls.noteEventStream(await this.#enter(tenantId), tenantId, input);
  }

  async forgetEventStreams(tenantId: string, streamIds: string[]): Promise<number> {
    return keyCalls.forgetEventStreams(await this.#enter(tenantId), streamIds);
  }

  // --- sessions and usage

  async reportSession(tenantId: string, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck> {
    return sessionCalls.reportSession(await this.#enter(tenantId), tenantId, report, notifications);
  }

  async getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null> {
    return sessionCalls.getSessionSummary(await this.#enter(tenantId), sessionId);
  }

  async cancellableSessions(tenantId: string, sessionIds: string[]): Promise<string[]> {
    return sessionCalls.cancellableSessions(await this.#enter(tenantId), sessionIds);
  }

  async removeSession(tenantId: string, sessionId: string, by?: AuditContext): Promise<boolean> {
    return sessionCalls.removeSession(await this.#enter(tenantId), sessionId, parseAuditContext(by));
  }

  async listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>> {
    return sessionCalls.listSessions(this.#read(tenantId), input);
  }

  async acquireRun(tenantId: string, sessionId: string, maxConcurrent: number, now: number): Promise<T.RunSlot> {
    return sessionCalls.acquireRun(await this.#enter(tenantId), sessionId, maxConcurrent, now);
  }

  async admitRun(tenantId: string, input: T.AdmitRunInput): Promise<T.RunAdmission> {
    return sessionCalls.admitRun(await this.#enter(tenantId), input);
  }

  async releaseRun(tenantId: string, sessionId: string): Promise<void> {
    return sessionCalls.releaseRun(await this.#enter(tenantId), sessionId);
  }

  async counts(tenantId: string): Promise<T.StatusCounts> {
    return sessionCalls.counts(this.#read(tenantId));
  }

  async cancelSessions(tenantId: string, filter: T.SessionFilter, by?: AuditContext): Promise<T.CancelResult> {
    return sessionCalls.cancelSessions(await this.#enter(tenantId), tenantId, filter, parseAuditContext(by));
  }

  async tokensToday(tenantId: string, now: number): Promise<number> {
    return sessionCalls.tokensToday(await this.#enter(tenantId), now);
  }

  async usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]> {
    return sessionCalls.usage(this.#read(tenantId), input);
  }

  async usageRollup(tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]> {
    return sessionCalls.usageRollup(this.#read(tenantId), input);
  }

  // --- limits, models, suspension and settings

  async getLimitOverrides(tenantId: string): Promise<PartialLimits> {
    await this.#enter(tenantId);
    return this.#readConfig().overrides;
  }

  async setLimitOverrides(tenantId: string, overrides: PartialLimits, by?: AuditContext): Promise<T.TenantConfig> {
    const config = await configCalls.setLimitOverrides(await this.#enter(tenantId), tenantId, overrides, parseAuditContext(by));
    await this.#platformAudit.flush();
    return config;
  }

  async getConfig(tenantId: string): Promise<T.TenantConfig> {
    const host = this.#read(tenantId);
    return host ? configCalls.tenantConfig(host, tenantId) : tenantConfigView(tenantId, this.#readConfig(), Date.now());
  }

  async setAllowedModels(tenantId: string, models: string[] | null, by?: AuditContext): Promise<T.TenantConfig> {
    const config = configCalls.setAllowedModels(await this.#enter(tenantId), tenantId, models, parseAuditContext(by));
    await this.#platformAudit.flush();
    return config;
  }

  async suspend(tenantId: string, by?: AuditContext): Promise<T.CancelResult> {
    const result = await configCalls.suspend(await this.#enter(tenantId), tenantId, parseAuditContext(by));
    await this.#platformAudit.flush();
    return result;
  }

  async unsuspend(tenantId: string, by?: AuditContext): Promise<void> {
    await configCalls.unsuspend(await this.#enter(tenantId), tenantId, parseAuditContext(by));
    await this.#platformAudit.flush();
  }

  async getSettings(tenantId: string): Promise<T.TenantSettings> {
    await this.#enter(tenantId);
    return this.#readConfig().settings;
  }

  async putSettings(tenantId: string, settings: T.TenantSettings, by?: AuditContext): Promise<T.TenantSettings> {
    return configCalls.putSettings(await this.#enter(tenantId), tenantId, settings, parseAuditContext(by));
  }

  // --- webhook secret and status webhooks

  async getWebhookSecret(tenantId: string): Promise<T.SigningSecret> {
    await this.#enter(tenantId);
    return readSigningSecret(this.ctx.storage.kv, Date.now());
  }

  async rotateWebhookSecret(tenantId: string, by?: AuditContext): Promise<T.SigningSecret> {
    const host = await this.#enter(tenantId);
    const context = parseAuditContext(by);
    return host.transaction(() => {
      const rotated = rotateWebhookSecret(this.ctx.storage.kv, Date.now());
      host.audit(context, { action: "webhook_secret.rotated", target: { type: "tenant", id: tenantId } });
      return rotated;
    });
  }

  async getCallSigning(tenantId: string): Promise<T.CallSigning> {
    return notificationCalls.callSigning(await this.#enter(tenantId));
  }

  async acceptNotifications(tenantId: string, batch: unknown): Promise<NotificationAck> {
    return notificationCalls.takeNotifications(await this.#enter(tenantId), tenantId, batch);
  }

  async createWebhookEndpoint(tenantId: string, endpoint: T.NewNotificationEndpoint, by?: AuditContext): Promise<CreateEndpointResult> {
    return notificationCalls.createWebhookEndpoint(await this.#enter(tenantId), endpoint, parseAuditContext(by));
  }

  async listWebhookEndpoints(tenantId: string, input: T.PageInput): Promise<Page<NotificationEndpoint>> {
    return notificationCalls.listWebhookEndpoints(await this.#enter(tenantId), input);
  }

  async deleteWebhookEndpoint(tenantId: string, endpointId: string, by?: AuditContext): Promise<boolean> {
    return notificationCalls.deleteWebhookEndpoint(await this.#enter(tenantId), endpointId, parseAuditContext(by));
  }

  async listWebhookDeliveries(
    tenantId: string,
    endpointId: string,
    input: T.DeliveryListInput,
  ): Promise<Page<NotificationDelivery> | null> {
    return notificationCalls.listWebhookDeliveries(await this.#enter(tenantId), endpointId, input);
  }

  async redeliverWebhook(tenantId: string, endpointId: string, deliveryId: string, by?: AuditContext): Promise<RedeliverResult> {
    return notificationCalls.redeliverWebhook(await this.#enter(tenantId), endpointId, deliveryId, parseAuditContext(by));
  }

  // --- audit log

  async recordAudit(tenantId: string, entries: readonly (AuditEntry | AuditRecordInput)[]): Promise<AuditEntry[]> {
    if (!Array.isArray(entries)) throw new TypeError("entries: not a list");
    const host = await this.#enter(tenantId);
    const parsed = entries.map((item: AuditEntry | AuditRecordInput) =>
      "change" in item ? { by: parseAuditContext(item.by), change: parseAuditChange(item.change) } : parseAuditEntry(item),
    );
    for (const item of parsed) if ("id" in item && item.tenant_id !== tenantId) throw new TypeError("audit entry: another tenant's");
    const kept = host.transaction(() => parsed.map((item) => ("id" in item ? this.#keepAudit(item) : this.#audit(item.by, item.change))));
    await this.#platformAudit.flush();
    return kept;
  }

  async listAuditLog(tenantId: string, input: AuditListInput): Promise<Page<AuditEntry>> {
    const checked = parseAuditListInput(input);
    const host = this.#read(tenantId);
    return host ? listAuditEntries(host.sql, { ...checked, tenant_id: null }) : { data: [], next_cursor: null };
  }

  // --- tenant deletion

  async deleteTenant(tenantId: string, now: number, by?: AuditContext): Promise<deletion.DeletionProgress> {
    const host = await this.#enter(tenantId);
    const at = requireNow(now);
    const actor = parseAuditContext(by);
    const started = deletion.readDeletion(this.ctx.storage.kv) === null;
    // The state, its audit entry (copied to the platform's log, which outlives this object) and the
    // alarm that drives the deletion commit together; each alarm hands the entry over before a pass.
    const state = host.transaction(() => {
      const begun = deletion.startDeletion(this.ctx.storage.kv, at);
      if (started)
        host.audit(actor, {
          action: "tenant.deleted",
          target: { type: "tenant", id: tenantId },
          details: { started_at: new Date(begun.started_at).toISOString() },
        });
      return begun;
    });
    // Asked again, the deletion's alarm is set again too: a lost one never stops it for good.
    await this.#alarms.wakeWithWrite();
    if (started) {
      // Listed as deleting at once; the last pass records it again, so a failure here loses nothing.
      await tenantRegistryStub(this.env)
        .beginDeletion(tenantId, state.started_at)
        .catch((error: unknown) => log("warn", "tenant_deletion_unrecorded", { tenant_id: tenantId, error: describeError(error) }));
      await configCalls.suspend(host, tenantId, actor);
      await this.#platformAudit.flush();
    }
    return deletion.deletingProgress(state, deletion.sessionsLeft(this.#sql));
  }

  async deletionProgress(tenantId: string): Promise<deletion.DeletionProgress | null> {
    if (!this.#read(tenantId)) return null;
    const state = deletion.readDeletion(this.ctx.storage.kv);
    return state ? deletion.deletingProgress(state, deletion.sessionsLeft(this.#sql)) : null;
  }

  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  // --- idempotency

  async beginIdempotent(tenantId: string, input: T.BeginIdempotentInput): Promise<T.IdempotencyBegin> {
    const host = await this.#enter(tenantId);
    const checked = idempotency.parseBeginIdempotent(input);
    return host.transaction(() => idempotency.beginIdempotent(host.sql, checked));
  }

  async completeIdempotent(tenantId: string, input: T.CompleteIdempotentInput): Promise<boolean> {
    return idempotency.completeIdempotent((await this.#enter(tenantId)).sql, idempotency.parseCompleteIdempotent(input));
  }

  async releaseIdempotent(tenantId: string, input: T.ReleaseIdempotentInput): Promise<boolean> {
    return idempotency.releaseIdempotent((await this.#enter(tenantId)).sql, idempotency.parseReleaseIdempotent(input));
  }

  /**
   * The alarm does three jobs: the run-slot pump, a bounded pass of notification deliveries, and
   * a bounded pass of the retention sweep. It is then set again for the earliest of what each
   * still has due. While the tenant is being deleted it does that alone.
   */
  override async alarm(): Promise<void> {
    const tenantId = this.#binding.tenantId;
    if (!tenantId || !this.#migrated) return;
    await this.#platformAudit.flush();
    const deleting = deletion.readDeletion(this.ctx.storage.kv);
    if (deleting) return this.#deletionPass(tenantId, deleting);
    await this.#grantQueuedSlots(tenantId);
    await this.#deliverNotifications(tenantId);
    await this.#sweepRetention(tenantId);
    await this.#armAlarm();
  }

  // --- private helpers (not reachable over RPC)

  /**
   * The key's record, read from storage, and the request admitted in the same call only when
   * `stands` accepts the record (so a key that does not stand spends no rate budget). The
   * scopes that decide the request's lane: `scopes(record)` when given, else the input's.
   */
  async #admitWithKey(
    tenantId: string,
    keyId: string,
    input: T.AdmitRequestInput,
    stands: (record: apiKeys.ApiKeyRecord | null, keyId: string, now: number) => boolean,
    scopes?: (record: apiKeys.ApiKeyRecord) => readonly string[],
  ): Promise<T.ApiKeyAdmission> {
    const id = requireString("keyId", keyId);
    const request = admitInput(input);
    const record = this.#findApiKey(tenantId, id);
    if (!record || !stands(record, id, request.now)) return { record, admission: null };
    await this.#enter(tenantId);
    const admission = admit(this.#readConfig(), this.#limiter, scopes ? { ...request, scopes: scopes(record) } : request);
    return { record, admission: endUserCalls.withRevocation(this.#host, admission, input.endUser) };
  }

  /**
   * Hands free run slots to queued sessions, oldest first, and tells each session object. A session that
   * cannot be told now is told again shortly; a grant it never takes up lapses with its
   * reservation and is made again. Queued session objects also ask by themselves now and then.
   */
  async #grantQueuedSlots(tenantId: string): Promise<void> {
    const config = this.#readConfig();
    if (config.suspended) return;
    const now = Date.now();
    this.ctx.storage.transactionSync(() => grantQueuedSlots(this.#sql, config.limits.max_concurrent_runs, now));
    const granted = grantedSessions(this.#sql);
    await Promise.all(
      granted.map((id) =>
        sessionStub(this.env, tenantId, id)
          .slotGranted()
          .catch((error: unknown) => log("warn", "slot_grant_undelivered", { tenant_id: tenantId, session_id: id, error: String(error) })),
      ),
    );
  }

  /** One pass over the due deliveries (dispatcher.ts), then retention for the receivers it settled. */
  async #deliverNotifications(tenantId: string): Promise<void> {
    const config = loadConfig(this.env);
    const pass = await deliverDue(
      this.#sql,
      tenantId,
      (now) => ({
        secrets: signingSecrets(this.ctx.storage.kv, now),
        allowedOrigins: this.#readConfig().settings.webhook_origins,
        allowPrivateUrls: config.allowPrivateUrls,
        now,
      }),
      config.notifyRetryScale,
    );
    if (pass.settledTargets.length > 0) pruneDeliveries(this.#sql, Date.now(), pass.settledTargets);
  }

  /**
   * Syncs the alarm to the earlier of the pump's next look and the next delivery due; an earlier
   * one set already stays (a call made while this alarm ran may have asked for one).
   */
  async #armAlarm(): Promise<void> {
    const now = Date.now();
    const rule = this.#retention();
    const sweepAt = rule ? nextExpiry(this.#sql, rule) : null;
    const times = [
      this.#readConfig().suspended ? null : nextPumpAt(this.#sql, now),
      nextDueAt(this.#sql),
      sweepAt === null ? null : Math.max(sweepAt, this.#sweepNotBefore),
      this.#platformAudit.retryAt(now),
    ].filter((at): at is number => at !== null);
    await this.#alarms.sync(times.length === 0 ? null : Math.min(...times));
  }

  /** The retention that applies to this tenant (its own, else the platform's), or null: sessions are kept. */
  #retention(): RetentionRule | null {
    const config = loadConfig(this.env);
    const days = effectiveRetentionDays(this.#readConfig().settings.session_retention_days, config.defaultSessionRetentionDays);
    return days === null ? null : { days, dayMs: config.retentionDayMs };
  }

  /** One bounded pass (src/lifecycle/sweep.ts); a pass that left kept rows waits `retryGapMs` before the next. */
  async #sweepRetention(tenantId: string): Promise<void> {
    const rule = this.#retention();
    const now = Date.now();
    if (!rule || now < this.#sweepNotBefore) return;
    const pass = await sweepExpired(this.env, this.#sql, tenantId, rule, now, (id) => {
      this.ctx.storage.transactionSync(() => sessionRows.removeSession(this.#sql, id, Date.now()));
    });
    this.#sweepNotBefore = pass.full ? 0 : Date.now() + retryGapMs(rule);
  }

  /**
   * One bounded pass of the tenant's deletion, then the next one at once; the last empties this
   * object. A failed pass is logged and tried again shortly, however often it fails.
   */
  async #deletionPass(tenantId: string, state: deletion.DeletionState): Promise<void> {
    try {
      if ((await deletion.deletionPass(this.env, this.ctx.storage.kv, this.#sql, tenantId, state)) === "more") {
        await this.#alarms.sync(Date.now());
        return;
      }
      const finishedAt = Date.now();
      await tenantRegistryStub(this.env).finishDeletion(tenantId, state.started_at, finishedAt);
      await purgeStorage(this.ctx.storage);
      this.#forgetTenant();
      recordLifecycle({ action: "tenant.deleted", tenant_id: tenantId, started_at: state.started_at, finished_at: finishedAt });
    } catch (error) {
      log("error", "tenant_deletion_pass_failed", { tenant_id: tenantId, error: describeError(error) });
      await this.#alarms.sync(Date.now() + deletion.DELETION_RETRY_MS);
    }
  }

  /** After the storage went: this instance holds nothing of the tenant either, and binds it never again. */
  #forgetTenant(): void {
    this.#binding = new TenantBinding(this.ctx.storage.kv, (id, createdAt) => tenantRegistryStub(this.env).register(id, createdAt));
    this.#migrated = false;
    this.#config = null;
    this.#gone = true;
  }

  /** The alarm fires by `at`: an alarm set sooner (even one due already) is never put off. */
  async #wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    await this.#alarms.sync(current === null ? at : Math.min(at, current));
  }

  /** The alarm fires now, unless it is set to fire sooner already. */
  async #wakeSoon(): Promise<void> {
    await this.#alarms.sync(Date.now());
  }

  /** Runs the queue pump soon when anyone is queued (a slot may just have been freed). */
  async #schedulePump(): Promise<void> {
    if (queueLength(this.#sql) === 0) return;
    await this.#wakeSoon();
  }

  /**
   * Writes the entry of a change made here, inside the change's transaction (nested ones are
   * savepoints of it). A platform action is also owed to the registry, and the alarm is set in
   * the same synchronous stretch, so a crash before the hand-over leaves a wake-up that makes it.
   */
  #audit(by: AuditContext | undefined, change: AuditChange): AuditEntry {
    const tenantId = this.#binding.tenantId;
    if (!tenantId) throw new Error("audit before the tenant was bound");
    const now = Date.now();
    return this.#keepAudit(auditEntry(tenantId, by, change, newAuditId(), now));
  }

  #keepAudit(entry: AuditEntry): AuditEntry {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      appendAuditEntry(this.#sql, entry, now);
      if (PLATFORM_ACTIONS.has(entry.action)) this.#platformAudit.enqueue(entry, now);
    });
    if (PLATFORM_ACTIONS.has(entry.action))
      this.#alarms.wakeWithWrite().catch((error: unknown) => log("warn", "audit_wake_not_set", { error: String(error) }));
    return entry;
  }

  get #sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  /** Reads only: it must not bind or register the tenant (see `peek`). */
  #findApiKey(tenantId: string, keyId: string): apiKeys.ApiKeyRecord | null {
    // Unbound, or bound by a first call still registering: either way no key is stored yet.
    if (!this.#binding.peek(tenantId) || !this.#migrated) return null;
    return apiKeys.findApiKey(this.#sql, tenantId, keyId);
  }

  /** Binds (and on first use registers) the tenant, creates the tables, and hands over the host. */
  async #enter(tenantId: string): Promise<IndexHost> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.#migrate();
    return this.#host;
  }

  /**
   * The host for a read: null when no tenant was ever entered here. A read (a platform admin
   * looking up any id) then answers what an empty tenant would, and binds, registers and creates nothing.
   */
  #read(tenantId: string): IndexHost | null {
    if (!this.#binding.peek(tenantId)) return null;
    if (!this.#migrated) this.#migrate();
    return this.#host;
  }

  #migrate(): void {
    migrate(this.ctx.storage, TENANT_INDEX_MIGRATIONS);
    this.#migrated = true;
  }

  #readConfig(): ConfigState {
    this.#config ??= readConfigState(this.ctx.storage.kv, loadConfig(this.env).defaultLimits);
    return this.#config;
  }
}
