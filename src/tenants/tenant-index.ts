/**
 * The TenantIndex Durable Object, one per tenant: session index, usage, run slots, API keys,
 * limits and suspension, the tenant's settings, rate limiting, idempotency records, the
 * webhook secrets, and status webhooks (endpoints, the delivery log, and delivery itself, from
 * the alarm). A thin facade: it binds the tenant and admits requests, and each other call goes
 * to its concern under tenant-index/; what each answers is documented on `TenantIndexRpc`
 * (rpc.ts). Storage: see storage.md.
 */
import { DurableObject } from "cloudflare:workers";
import { log } from "../log";
import type { Page, SessionSummary } from "../sessions/types";
import { loadConfig } from "../config";
import type { PartialLimits } from "../limits";
import { admit, admitInput } from "./admission";
import * as apiKeys from "./api-key-store";
import { checkApiKeyRecord, exchangedKeyStands, keyScopes } from "../auth/api-keys";
import * as idempotency from "./idempotency-store";
import { RateLimiter } from "./rate-limit";
import { grantedSessions, grantQueuedSlots, nextPumpAt, queueLength } from "./run-slots";
import type { TenantIndexRpc } from "./rpc";
import { TenantBinding } from "./tenant-binding";
import { type ConfigState, readConfigState, tenantConfigView } from "./tenant-config";
import { sessionStub, tenantRegistryStub } from "../objects";
import type * as T from "./types";
import type { RollupRow } from "./usage-rollup";
import { migrate } from "../storage/migrations";
import { AlarmClock } from "../storage/alarm-clock";
import { TENANT_INDEX_MIGRATIONS } from "./migrations";
import { requireNow, requireString } from "./validate";
import { readSigningSecret, rotateWebhookSecret, signingSecrets } from "./signing-secret";
import { readAllowedModels } from "./tenant-models";
import type { NotificationAck } from "../notifications/types";
import { nextDueAt, pruneDeliveries, type RedeliverResult, type NotificationDelivery } from "../notifications/delivery-store";
import { deliverDue } from "../notifications/dispatcher";
import type { CreateEndpointResult, NotificationEndpoint } from "../notifications/endpoint-store";
import * as keyCalls from "./tenant-index/api-keys";
import * as configCalls from "./tenant-index/config";
import type { IndexHost } from "./tenant-index/host";
import * as sessionCalls from "./tenant-index/sessions";
import * as notificationCalls from "./tenant-index/notifications";

export class TenantIndex extends DurableObject<Cloudflare.Env> implements TenantIndexRpc {
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  #limiter = new RateLimiter();
  /** Read once, then kept in step by this object's own writes (it is the only writer). */
  #config: ConfigState | null = null;
  /** What the concerns under tenant-index/ are given of this object. */
  readonly #host: IndexHost;

  /** Whether the tables exist: only once a tenant was entered, never for a lookup alone. */
  #migrated = false;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#binding = new TenantBinding(ctx.storage.kv, (tenantId, createdAt) =>
      tenantRegistryStub(env).register(tenantId, createdAt),
    );
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
      schedulePump: () => this.#schedulePump(),
    };
    // An index that was never entered (an unknown tenant named by an unverified key) stays empty:
    // looking it up costs a read and writes nothing.
    if (this.#binding.bound) void ctx.blockConcurrencyWhile(async () => this.#migrate());
  }

  async admitRequest(tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
    await this.#enter(tenantId);
    return admit(this.#readConfig(), this.#limiter, admitInput(input));
  }

  // --- API keys

  /** Must not bind or register the tenant (see `peek`): the key is not verified yet. */
  async findApiKey(tenantId: string, keyId: string): Promise<apiKeys.ApiKeyRecord | null> {
    return this.#findApiKey(tenantId, requireString("keyId", keyId));
  }

  async admitApiKey(tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
    const secretHash = requireString("secretHash", input.secretHash);
    // The key's scopes, from its record: the gateway does not know them before this call.
    return this.#admitWithKey(tenantId, keyId, input, (record, id, now) => checkApiKeyRecord({ tenantId, keyId: id }, secretHash, record, now) === null, keyScopes);
  }

  async admitExchangedToken(tenantId: string, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission> {
    // The token's own scopes (in `input`): it may have been granted fewer than its key holds.
    return this.#admitWithKey(tenantId, keyId, input, (record, id, now) => exchangedKeyStands(record, { tenantId, keyId: id }, now));
  }

  async touchApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    return keyCalls.touchApiKey(await this.#enter(tenantId), keyId, now);
  }

  async createApiKey(tenantId: string, record: apiKeys.ApiKeyRecord): Promise<void> {
    keyCalls.createApiKey(await this.#enter(tenantId), tenantId, record);
  }

  async listApiKeys(tenantId: string, input: T.PageInput): Promise<Page<apiKeys.ApiKeyListing>> {
    return keyCalls.listApiKeys(await this.#enter(tenantId), tenantId, input);
  }

  async revokeApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    return keyCalls.revokeApiKey(await this.#enter(tenantId), tenantId, keyId, now);
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

  async removeSession(tenantId: string, sessionId: string): Promise<boolean> {
    return sessionCalls.removeSession(await this.#enter(tenantId), sessionId);
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

  async cancelSessions(tenantId: string, filter: T.SessionFilter): Promise<T.CancelResult> {
    return sessionCalls.cancelSessions(await this.#enter(tenantId), tenantId, filter);
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

  async setLimitOverrides(tenantId: string, overrides: PartialLimits): Promise<T.TenantConfig> {
    return configCalls.setLimitOverrides(await this.#enter(tenantId), tenantId, overrides);
  }

  async getConfig(tenantId: string): Promise<T.TenantConfig> {
    const host = this.#read(tenantId);
    return host ? configCalls.tenantConfig(host, tenantId) : tenantConfigView(tenantId, this.#readConfig(), Date.now());
  }

  async setAllowedModels(tenantId: string, models: string[] | null): Promise<T.TenantConfig> {
    return configCalls.setAllowedModels(await this.#enter(tenantId), tenantId, models);
  }

  async suspend(tenantId: string): Promise<T.CancelResult> {
    return configCalls.suspend(await this.#enter(tenantId), tenantId);
  }

  async unsuspend(tenantId: string): Promise<void> {
    return configCalls.unsuspend(await this.#enter(tenantId));
  }

  async getSettings(tenantId: string): Promise<T.TenantSettings> {
    await this.#enter(tenantId);
    return this.#readConfig().settings;
  }

  async putSettings(tenantId: string, settings: T.TenantSettings): Promise<T.TenantSettings> {
    return configCalls.putSettings(await this.#enter(tenantId), settings);
  }

  // --- webhook secret and status webhooks

  async getWebhookSecret(tenantId: string): Promise<T.SigningSecret> {
    await this.#enter(tenantId);
    return readSigningSecret(this.ctx.storage.kv, Date.now());
  }

  async rotateWebhookSecret(tenantId: string): Promise<T.SigningSecret> {
    await this.#enter(tenantId);
    return rotateWebhookSecret(this.ctx.storage.kv, Date.now());
  }

  async getCallSigning(tenantId: string): Promise<T.CallSigning> {
    return notificationCalls.callSigning(await this.#enter(tenantId));
  }

  async acceptNotifications(tenantId: string, batch: unknown): Promise<NotificationAck> {
    return notificationCalls.takeNotifications(await this.#enter(tenantId), tenantId, batch);
  }

  async createWebhookEndpoint(tenantId: string, endpoint: T.NewNotificationEndpoint): Promise<CreateEndpointResult> {
    return notificationCalls.createWebhookEndpoint(await this.#enter(tenantId), endpoint);
  }

  async listWebhookEndpoints(tenantId: string, input: T.PageInput): Promise<Page<NotificationEndpoint>> {
    return notificationCalls.listWebhookEndpoints(await this.#enter(tenantId), input);
  }

  async deleteWebhookEndpoint(tenantId: string, endpointId: string): Promise<boolean> {
    return notificationCalls.deleteWebhookEndpoint(await this.#enter(tenantId), endpointId);
  }

  async listWebhookDeliveries(tenantId: string, endpointId: string, input: T.DeliveryListInput): Promise<Page<NotificationDelivery> | null> {
    return notificationCalls.listWebhookDeliveries(await this.#enter(tenantId), endpointId, input);
  }

  async redeliverWebhook(tenantId: string, endpointId: string, deliveryId: string): Promise<RedeliverResult> {
    return notificationCalls.redeliverWebhook(await this.#enter(tenantId), endpointId, deliveryId);
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
   * The alarm does two jobs: the run-slot pump, then a bounded pass of notification deliveries.
   * It is then set again for the earlier of what each still has due.
   */
  override async alarm(): Promise<void> {
    const tenantId = this.#binding.tenantId;
    if (!tenantId || !this.#migrated) return;
    await this.#grantQueuedSlots(tenantId);
    await this.#deliverNotifications(tenantId);
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
    return { record, admission: admit(this.#readConfig(), this.#limiter, scopes ? { ...request, scopes: scopes(record) } : request) };
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
    const times = [this.#readConfig().suspended ? null : nextPumpAt(this.#sql, now), nextDueAt(this.#sql)].filter((at): at is number => at !== null);
    await this.#alarms.sync(times.length === 0 ? null : Math.min(...times));
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
