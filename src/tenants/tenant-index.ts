/**
 * The TenantIndex Durable Object, one per tenant: session index, usage, run slots, API keys,
 * limits and suspension, the tenant's settings, rate limiting, idempotency records, the
 * webhook secrets, and status webhooks (endpoints, the delivery log, and delivery itself, from
 * the alarm). The methods check their arguments and delegate to one module per concern.
 * Storage: see storage.md.
 */
import { DurableObject } from "cloudflare:workers";
import { log } from "../log";
import type { Page, SessionSummary } from "../sessions/types";
import { loadConfig } from "../config";
import type { PartialLimits } from "../limits";
import { admit } from "./admission";
import * as apiKeys from "./api-key-store";
import { checkApiKeyRecord, exchangedKeyStands } from "../auth/api-keys";
import { agentCanceller, cancelEach } from "./bulk-cancel";
import { closeStreamsOf, noteStream, sessionsStreaming, sessionsStreamingWithKey } from "./event-streams";
import { MAX_CURSOR_CHARS } from "../shared/cursor";
import * as idempotency from "./idempotency-store";
import { RateLimiter } from "./rate-limit";
import { acquireRunSlot, grantedSessions, grantQueuedSlots, nextPumpAt, queueLength, releaseRunSlot } from "./run-slots";
import { parseSessionReport, requireStatus } from "./session-report";
import * as sessions from "./sessions-store";
import { TenantBinding } from "./tenant-binding";
import { type ConfigState, parseOverrides, readConfigState, writeOverrides, writeSuspended } from "./tenant-config";
import { agentStub, tenantRegistryStub } from "../objects";
import type * as T from "./types";
import { migrate } from "../storage/migrations";
import { AlarmClock } from "../storage/alarm-clock";
import { TENANT_INDEX_MIGRATIONS } from "./migrations";
import { dailyBudgetRetryAfter, MAX_USAGE_DAYS, tokensOnDay, usageDays } from "./usage";
import { optionalString, requireInt, requireNow, requirePageLimit, requireString, toIso } from "./validate";
import { parseSettings, writeSettings } from "./tenant-settings";
import { readWebhookSecret, rotateWebhookSecret, signingSecrets } from "./webhook-secret";
import { parseAllowedModels, writeAllowedModels } from "./tenant-models";
import type { NotificationAck } from "../notifications/types";
import { DELIVERY_STATUSES, type DeliveryStatus, listDeliveries, nextDueAt, pruneDeliveries, redeliver, type RedeliverResult, type WebhookDelivery } from "../notifications/delivery-store";
import { deliverDue } from "../notifications/dispatcher";
import { type CreateEndpointResult, createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, parseNewEndpoint, type WebhookEndpoint } from "../notifications/endpoint-store";
import { parseNotificationBatch, takeNotifications } from "../notifications/intake";

export type { ApiKeyListing, ApiKeyRecord } from "./api-key-store";
export type { WebhookDelivery } from "../notifications/delivery-store";
export type { CreateEndpointResult, NewWebhookEndpoint, WebhookEndpoint } from "../notifications/endpoint-store";
export type * from "./types";

/** Scopes and keys can be long-ish (a subject plus a route); bodies are hashed before they get here. */
const MAX_IDEMPOTENCY_FIELD_CHARS = 1024;

export class TenantIndex extends DurableObject<Cloudflare.Env> {
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly #alarms: AlarmClock;
  #binding: TenantBinding;
  #limiter = new RateLimiter();
  /** Read once, then kept in step by this object's own writes (it is the only writer). */
  #config: ConfigState | null = null;

  /** Whether the tables exist: only once a tenant was entered, never for a lookup alone. */
  #migrated = false;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#alarms = new AlarmClock(ctx.storage);
    this.#binding = new TenantBinding(ctx.storage.kv, (tenantId, createdAt) =>
      tenantRegistryStub(env).register(tenantId, createdAt),
    );
    // An index that was never entered (an unknown tenant named by an unverified key) stays empty:
    // looking it up costs a read and writes nothing.
    if (this.#binding.bound) void ctx.blockConcurrencyWhile(async () => this.#migrate());
  }

  async admitRequest(tenantId: string, input: T.AdmitRequestInput): Promise<T.Admission> {
    await this.#enter(tenantId);
    return admit(this.#readConfig(), this.#limiter, requireString("bucket", input.bucket), requireNow(input.now));
  }

  // --- API keys

  /** Called before the key is verified: it must not bind or register the tenant (see `peek`). */
  async findApiKey(tenantId: string, keyId: string): Promise<apiKeys.ApiKeyRecord | null> {
    return this.#findApiKey(tenantId, requireString("keyId", keyId));
  }

  /**
   * The API-key path of a request in one round trip: the key's record, and the request admitted
   * (suspension, rate limit) in the same call only when the key stands, checked here with the
   * gateway's own rule (`checkApiKeyRecord`), so a wrong secret never spends a rate budget. The
   * record is read from storage on every call: a revocation takes effect on the next request.
   */
  async admitApiKey(tenantId: string, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
    const secretHash = requireString("secretHash", input.secretHash);
    return this.#admitWithKey(tenantId, keyId, input, (record, id, now) => checkApiKeyRecord({ tenantId, keyId: id }, secretHash, record, now) === null);
  }

  /**
   * The request of a token exchanged from an API key, in one round trip: the key's record, and
   * the request admitted only while the key stands (`exchangedKeyStands`), read from storage on
   * every call so that revoking the key ends its tokens at once.
   */
  async admitExchangedToken(tenantId: string, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission> {
    return this.#admitWithKey(tenantId, keyId, input, (record, id, now) => exchangedKeyStands(record, { tenantId, keyId: id }, now));
  }

  async touchApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    await this.#enter(tenantId);
    return apiKeys.touchApiKey(this.#sql, requireString("keyId", keyId), requireNow(now));
  }

  async createApiKey(tenantId: string, record: apiKeys.ApiKeyRecord): Promise<void> {
    await this.#enter(tenantId);
    this.ctx.storage.transactionSync(() => apiKeys.insertApiKey(this.#sql, tenantId, record));
  }

  async listApiKeys(tenantId: string, input: T.PageInput): Promise<Page<apiKeys.ApiKeyListing>> {
    await this.#enter(tenantId);
    return apiKeys.listApiKeys(this.#sql, tenantId, requirePageLimit(input.limit), optionalString("cursor", input.cursor, MAX_CURSOR_CHARS));
  }

  /** Revokes the key, then closes every event stream opened with it before answering. */
  async revokeApiKey(tenantId: string, keyId: string, now: number): Promise<boolean> {
    await this.#enter(tenantId);
    const id = requireString("keyId", keyId);
    const found = apiKeys.revokeApiKey(this.#sql, id, requireNow(now));
    if (found) await closeStreamsOf(this.env, tenantId, sessionsStreamingWithKey(this.#sql, id, now), { keyId: id }, "credentials");
    return found;
  }

  // --- event streams

  /**
   * Called by an Agent before a new stream gets its first frame: refused when the stream's key no
   * longer stands or the tenant is suspended; noted otherwise, so a later revocation or
   * suspension finds it. This object runs one call at a time, so none falls between the two.
   */
  async noteEventStream(tenantId: string, input: T.NoteStreamInput): Promise<T.StreamNote> {
    await this.#enter(tenantId);
    const checked: T.NoteStreamInput = {
      sessionId: requireString("sessionId", input.sessionId),
      keyId: input.keyId === null ? null : requireString("keyId", input.keyId),
      expiresAt: requireNow(input.expiresAt),
      now: requireNow(input.now),
    };
    const key = checked.keyId === null ? null : apiKeys.findApiKey(this.#sql, tenantId, checked.keyId);
    return noteStream(this.#sql, checked, key, this.#readConfig().suspended);
  }

  // --- sessions

  /**
   * `applied` is false for a stale or repeated revision, or a removed session. The notifications
   * the session owes ride along when there are any (see `acceptNotifications`), so a status change
   * costs one call; a batch this object refuses is logged and answered, never fails the report.
   */
  async reportSession(tenantId: string, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck> {
    await this.#enter(tenantId);
    const row = parseSessionReport(report);
    const applied = this.ctx.storage.transactionSync(() => sessions.recordSessionReport(this.#sql, row));
    if (applied) await this.#schedulePump();
    const ack: T.ReportAck = { applied, suspended: this.#readConfig().suspended, tokens_today: tokensOnDay(this.#sql, Date.now()) };
    if (notifications === undefined) return ack;
    try {
      await this.#takeNotifications(tenantId, notifications);
      return { ...ack, notifications_taken: true };
    } catch (error) {
      log("error", "notifications_refused", { tenant_id: tenantId, session_id: row.id, error: String(error) });
      return { ...ack, notifications_taken: false };
    }
  }

  async getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null> {
    await this.#enter(tenantId);
    return sessions.getSession(this.#sql, requireString("sessionId", sessionId));
  }

  async removeSession(tenantId: string, sessionId: string): Promise<boolean> {
    await this.#enter(tenantId);
    const id = requireString("sessionId", sessionId);
    const removed = this.ctx.storage.transactionSync(() => sessions.removeSession(this.#sql, id, Date.now()));
    await this.#schedulePump();
    return removed;
  }

  async listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>> {
    await this.#enter(tenantId);
    const filter = this.#filter(input);
    return sessions.listSessions(this.#sql, filter, requirePageLimit(input.limit), optionalString("cursor", input.cursor, MAX_CURSOR_CHARS));
  }

  async acquireRun(tenantId: string, sessionId: string, maxConcurrent: number, now: number): Promise<T.RunSlot> {
    await this.#enter(tenantId);
    return this.#acquireRun(sessionId, maxConcurrent, now);
  }

  /** A new run's admission in one round trip: the daily token budget first, then a slot as `acquireRun` takes it. */
  async admitRun(tenantId: string, input: T.AdmitRunInput): Promise<T.RunAdmission> {
    await this.#enter(tenantId);
    const at = requireNow(input.now);
    if (input.maxTokensPerDay !== null) {
      const budget = requireInt("maxTokensPerDay", input.maxTokensPerDay, 1);
      const retryAfterSeconds = dailyBudgetRetryAfter(tokensOnDay(this.#sql, at), budget, at);
      if (retryAfterSeconds !== null) return { ok: false, code: "budget_used", retryAfterSeconds };
    }
    return this.#acquireRun(input.sessionId, input.maxConcurrent, at);
  }

  /** Gives back the slot of a start that did not happen (the Agent refused it or failed). */
  async releaseRun(tenantId: string, sessionId: string): Promise<void> {
    await this.#enter(tenantId);
    releaseRunSlot(this.#sql, requireString("sessionId", sessionId));
    await this.#schedulePump();
  }

  async counts(tenantId: string): Promise<T.StatusCounts> {
    await this.#enter(tenantId);
    return sessions.countByStatus(this.#sql);
  }

  // --- usage

  async tokensToday(tenantId: string, now: number): Promise<number> {
    await this.#enter(tenantId);
    return tokensOnDay(this.#sql, requireNow(now));
  }

  async usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]> {
    await this.#enter(tenantId);
    const now = input.now === undefined ? Date.now() : requireNow(input.now);
    return usageDays(this.#sql, now, requireInt("days", input.days, 1, MAX_USAGE_DAYS));
  }

  // --- limits and suspension

  async getLimitOverrides(tenantId: string): Promise<PartialLimits> {
    await this.#enter(tenantId);
    return this.#readConfig().overrides;
  }

  /** Replaces the overrides as a whole and returns the resulting config. */
  async setLimitOverrides(tenantId: string, overrides: PartialLimits): Promise<T.TenantConfig> {
    await this.#enter(tenantId);
    writeOverrides(this.ctx.storage.kv, parseOverrides(overrides));
    this.#config = null;
    await this.#schedulePump(); // a higher max_concurrent_runs frees slots for the queue
    return this.#tenantConfig(tenantId);
  }

  async getConfig(tenantId: string): Promise<T.TenantConfig> {
    await this.#enter(tenantId);
    return this.#tenantConfig(tenantId);
  }

  /** Replaces the tenant's list of models as a whole (null: no narrowing); returns the config. */
  async setAllowedModels(tenantId: string, models: string[] | null): Promise<T.TenantConfig> {
    await this.#enter(tenantId);
    writeAllowedModels(this.ctx.storage.kv, parseAllowedModels(models));
    this.#config = null;
    return this.#tenantConfig(tenantId);
  }

  /** The flag is set before any Agent is asked, so no new request is admitted meanwhile. */
  async suspend(tenantId: string): Promise<T.CancelResult> {
    await this.#enter(tenantId);
    writeSuspended(this.ctx.storage.kv, true);
    this.#config = null;
    const result = await this.#cancel(tenantId, {});
    // Cancelled runs end their streams; streams of idle sessions are closed here.
    await closeStreamsOf(this.env, tenantId, sessionsStreaming(this.#sql, Date.now()), { all: true }, "suspended");
    return result;
  }

  async unsuspend(tenantId: string): Promise<void> {
    await this.#enter(tenantId);
    writeSuspended(this.ctx.storage.kv, false);
    this.#config = null;
    await this.#schedulePump();
  }

  async cancelSessions(tenantId: string, filter: T.SessionFilter): Promise<T.CancelResult> {
    await this.#enter(tenantId);
    return this.#cancel(tenantId, this.#filter(filter ?? {}));
  }

  // --- webhook secret

  async getWebhookSecret(tenantId: string): Promise<T.WebhookSecret> {
    await this.#enter(tenantId);
    return readWebhookSecret(this.ctx.storage.kv, Date.now());
  }

  async rotateWebhookSecret(tenantId: string): Promise<T.WebhookSecret> {
    await this.#enter(tenantId);
    return rotateWebhookSecret(this.ctx.storage.kv, Date.now());
  }

  /** For the Agent, at each webhook call: the secrets to sign with and the allowed origins, in one call. */
  async getWebhookSigning(tenantId: string): Promise<T.WebhookSigning> {
    await this.#enter(tenantId);
    return { secrets: signingSecrets(this.ctx.storage.kv, Date.now()), webhook_origins: this.#readConfig().settings.webhook_origins };
  }

  // --- status webhooks

  /**
   * A session hands over the notifications it owes: each becomes a delivery per subscribed
   * endpoint (and one for the session's notify URL), delivered from this object's alarm. An event
   * id seen before adds nothing, so the session may repeat a hand-off whose answer it lost.
   */
  async acceptNotifications(tenantId: string, batch: unknown): Promise<NotificationAck> {
    await this.#enter(tenantId);
    return this.#takeNotifications(tenantId, batch);
  }

  async createWebhookEndpoint(tenantId: string, endpoint: T.NewWebhookEndpoint): Promise<CreateEndpointResult> {
    await this.#enter(tenantId);
    const parsed = parseNewEndpoint(endpoint);
    return this.ctx.storage.transactionSync(() => createEndpoint(this.#sql, parsed, Date.now()));
  }

  async listWebhookEndpoints(tenantId: string, input: T.PageInput): Promise<Page<WebhookEndpoint>> {
    await this.#enter(tenantId);
    return listEndpoints(this.#sql, requirePageLimit(input.limit), optionalString("cursor", input.cursor, MAX_CURSOR_CHARS));
  }

  /** Removes the endpoint and its delivery log; false when there is none with this id. */
  async deleteWebhookEndpoint(tenantId: string, endpointId: string): Promise<boolean> {
    await this.#enter(tenantId);
    const id = requireString("endpointId", endpointId);
    return this.ctx.storage.transactionSync(() => deleteEndpoint(this.#sql, id));
  }

  /** The endpoint's deliveries, newest first; null when the tenant has no such endpoint. */
  async listWebhookDeliveries(tenantId: string, endpointId: string, input: T.DeliveryListInput): Promise<Page<WebhookDelivery> | null> {
    await this.#enter(tenantId);
    const id = requireString("endpointId", endpointId);
    if (!getEndpoint(this.#sql, id)) return null;
    const status = input.status == null ? null : requireDeliveryStatus(input.status);
    return listDeliveries(this.#sql, id, status, requirePageLimit(input.limit), optionalString("cursor", input.cursor, MAX_CURSOR_CHARS));
  }

  /** Sends one of the endpoint's deliveries again, as a new delivery of the same event. */
  async redeliverWebhook(tenantId: string, endpointId: string, deliveryId: string): Promise<RedeliverResult> {
    await this.#enter(tenantId);
    const id = requireString("endpointId", endpointId);
    const delivery = requireString("deliveryId", deliveryId);
    if (!getEndpoint(this.#sql, id)) return { ok: false, reason: "not_found" };
    const result = this.ctx.storage.transactionSync(() => redeliver(this.#sql, id, delivery, Date.now()));
    if (result.ok) await this.#wakeSoon();
    return result;
  }

  // --- the tenant's own settings

  async getSettings(tenantId: string): Promise<T.TenantSettings> {
    await this.#enter(tenantId);
    return this.#readConfig().settings;
  }

  /** Replaces the settings as a whole; the next admission carries them to the gateway. */
  async putSettings(tenantId: string, settings: T.TenantSettings): Promise<T.TenantSettings> {
    await this.#enter(tenantId);
    const parsed = parseSettings(settings);
    writeSettings(this.ctx.storage.kv, parsed);
    this.#config = null;
    return parsed;
  }

  // --- idempotency

  async beginIdempotent(tenantId: string, input: T.BeginIdempotentInput): Promise<T.IdempotencyBegin> {
    await this.#enter(tenantId);
    const checked: T.BeginIdempotentInput = {
      scope: requireString("scope", input.scope, MAX_IDEMPOTENCY_FIELD_CHARS),
      key: requireString("key", input.key, MAX_IDEMPOTENCY_FIELD_CHARS),
      bodyHash: requireString("bodyHash", input.bodyHash, MAX_IDEMPOTENCY_FIELD_CHARS),
      now: requireNow(input.now),
    };
    return this.ctx.storage.transactionSync(() => idempotency.beginIdempotent(this.#sql, checked));
  }

  /** False when there was nothing in progress to complete (expired, or completed already). */
  async completeIdempotent(tenantId: string, input: T.CompleteIdempotentInput): Promise<boolean> {
    await this.#enter(tenantId);
    const checked: T.CompleteIdempotentInput = {
      scope: requireString("scope", input.scope, MAX_IDEMPOTENCY_FIELD_CHARS),
      key: requireString("key", input.key, MAX_IDEMPOTENCY_FIELD_CHARS),
      status: requireInt("status", input.status, 100, 599),
      body: input.body,
      now: requireNow(input.now),
    };
    return idempotency.completeIdempotent(this.#sql, checked);
  }

  /** Frees a begun key whose answer is not kept, so a retry runs at once. */
  async releaseIdempotent(tenantId: string, input: T.ReleaseIdempotentInput): Promise<boolean> {
    await this.#enter(tenantId);
    return idempotency.releaseIdempotent(this.#sql, {
      scope: requireString("scope", input.scope, MAX_IDEMPOTENCY_FIELD_CHARS),
      key: requireString("key", input.key, MAX_IDEMPOTENCY_FIELD_CHARS),
    });
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
   * `stands` accepts the record (so a key that does not stand spends no rate budget).
   */
  async #admitWithKey(
    tenantId: string,
    keyId: string,
    input: T.AdmitRequestInput,
    stands: (record: apiKeys.ApiKeyRecord | null, keyId: string, now: number) => boolean,
  ): Promise<T.ApiKeyAdmission> {
    const id = requireString("keyId", keyId);
    const bucket = requireString("bucket", input.bucket);
    const now = requireNow(input.now);
    const record = this.#findApiKey(tenantId, id);
    if (!stands(record, id, now)) return { record, admission: null };
    await this.#enter(tenantId);
    return { record, admission: admit(this.#readConfig(), this.#limiter, bucket, now) };
  }

  /**
   * Hands free run slots to queued sessions, oldest first, and tells each Agent. A session that
   * cannot be told now is told again shortly; a grant it never takes up lapses with its
   * reservation and is made again. Queued Agents also ask by themselves now and then.
   */
  async #grantQueuedSlots(tenantId: string): Promise<void> {
    const config = this.#readConfig();
    if (config.suspended) return;
    const now = Date.now();
    this.ctx.storage.transactionSync(() => grantQueuedSlots(this.#sql, config.limits.max_concurrent_runs, now));
    const granted = grantedSessions(this.#sql);
    await Promise.all(
      granted.map((id) =>
        agentStub(this.env, tenantId, id)
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
   * Sets the alarm for the earlier of the pump's next look and the next delivery due, unless an
   * earlier one is set already (a call made while this alarm ran may have asked for one).
   */
  async #armAlarm(): Promise<void> {
    const now = Date.now();
    const times = [this.#readConfig().suspended ? null : nextPumpAt(this.#sql, now), nextDueAt(this.#sql)].filter((at): at is number => at !== null);
    if (times.length === 0) return;
    await this.#alarms.setNoLaterThan(Math.max(now, Math.min(...times)));
  }

  /** Checks a hand-over of notifications and makes its deliveries, to be sent from the alarm. */
  async #takeNotifications(tenantId: string, batch: unknown): Promise<NotificationAck> {
    const parsed = parseNotificationBatch(tenantId, batch);
    const now = Date.now();
    const intake = this.ctx.storage.transactionSync(() => {
      const taken = takeNotifications(this.#sql, parsed, now);
      if (taken.deliveries > 0) pruneDeliveries(this.#sql, now, taken.targets);
      return taken;
    });
    if (intake.deliveries > 0) await this.#wakeSoon();
    return { deliveries: intake.deliveries };
  }

  /** The alarm fires now, unless it is set to fire sooner already. */
  async #wakeSoon(): Promise<void> {
    await this.#alarms.setNoLaterThan(Date.now());
  }

  // --- private helpers (not reachable over RPC)

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

  async #enter(tenantId: string): Promise<void> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.#migrate();
  }

  #migrate(): void {
    migrate(this.ctx.storage, TENANT_INDEX_MIGRATIONS);
    this.#migrated = true;
  }

  #acquireRun(sessionId: string, maxConcurrent: number, now: number): T.RunSlot {
    const id = requireString("sessionId", sessionId);
    const max = requireInt("maxConcurrent", maxConcurrent, 1);
    const at = requireNow(now);
    if (this.#readConfig().suspended) return { ok: false, code: "suspended" };
    return this.ctx.storage.transactionSync(() => acquireRunSlot(this.#sql, id, max, at));
  }

  #readConfig(): ConfigState {
    this.#config ??= readConfigState(this.ctx.storage.kv, loadConfig(this.env).defaultLimits);
    return this.#config;
  }

  #tenantConfig(tenantId: string): T.TenantConfig {
    const config = this.#readConfig();
    return {
      tenant_id: tenantId,
      suspended: config.suspended,
      limit_overrides: config.overrides,
      effective_limits: config.limits,
      models: config.models,
      created_at: toIso(this.#binding.createdAt),
    };
  }

  #filter(input: T.SessionFilter): T.SessionFilter {
    return {
      status: input.status == null ? null : requireStatus(input.status),
      created_by: optionalString("created_by", input.created_by),
    };
  }

  async #cancel(tenantId: string, filter: T.SessionFilter): Promise<T.CancelResult> {
    const ids = sessions.activeSessionIds(this.#sql, filter);
    return { cancelled: await cancelEach(ids, agentCanceller(this.env, tenantId)) };
  }
}

function requireDeliveryStatus(value: unknown): DeliveryStatus {
  if (typeof value !== "string" || !(DELIVERY_STATUSES as readonly string[]).includes(value)) throw new TypeError("status must be a delivery status");
  return value as DeliveryStatus;
}
