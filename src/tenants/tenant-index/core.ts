/**
 * What the tenant index holds beside its tables: the tenant it is bound to, whether its tables
 * exist, its cached config, its alarm, the platform's audit outbox and the rate limiter. The door
 * class and the concerns under tenant-index/ reach the object through it, and the concerns only
 * through the narrow `IndexHost` it builds.
 */
import { PLATFORM_ACTIONS } from "../../audit/actions";
import { auditEntry, newAuditId } from "../../audit/entry";
import { AuditOutbox } from "../../audit/outbox";
import { appendAuditEntry } from "../../audit/store";
import type { AuditChange, AuditContext, AuditEntry } from "../../audit/types";
import { loadConfig } from "../../config";
import { log } from "../../log";
import { tenantRegistryStub } from "../../objects";
import { AlarmClock } from "../../storage/alarm-clock";
import { migrate } from "../../storage/migrations";
import { findApiKey, type ApiKeyRecord } from "../api-key-store";
import { TENANT_INDEX_MIGRATIONS } from "../migrations";
import { RateLimiter } from "../rate-limit";
import { effectiveRetentionDays, type RetentionRule } from "../../session-config/retention";
import { queueLength } from "../run-slots";
import { type ConfigState, readConfigState } from "../tenant-config";
import { TenantBinding } from "../tenant-binding";
import { readDeletion } from "../tenant-deletion";
import type { IndexHost } from "./host";
import type { SessionEraser } from "./retention-sweep";
import { requireString } from "../../shared/validate";

export class IndexCore {
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly alarms: AlarmClock;
  readonly limiter = new RateLimiter();
  /** Platform actions owed to the registry's log. */
  readonly platformAudit: AuditOutbox;
  /** What the concerns under tenant-index/ are given of this object. */
  readonly host: IndexHost;
  /** The registry refused this tenant (deleted): admission answers "suspended" without asking again. */
  gone = false;
  /** The retention sweep looks no sooner than this (it left rows that their objects kept). */
  sweepNotBefore = 0;
  /** A pass over a shard's rows took a whole batch: the sweep looks again at once. */
  shardsBehind = false;
  #binding: TenantBinding;
  /** Whether the tables exist: only once a tenant was entered, never for a lookup alone. */
  #migrated = false;
  /** Read once, then kept in step by this object's own writes (it is the only writer). */
  #config: ConfigState | null = null;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Cloudflare.Env,
    /** How the retention sweep reaches the session objects (wired in src/lifecycle/). */
    readonly eraser: SessionEraser,
  ) {
    this.alarms = new AlarmClock(ctx.storage);
    this.#binding = this.#newBinding();
    this.platformAudit = new AuditOutbox(
      () => ctx.storage.sql,
      (entries) => tenantRegistryStub(env).recordAudit(entries),
    );
    this.host = {
      env,
      get sql() {
        return ctx.storage.sql;
      },
      get kv() {
        return ctx.storage.kv;
      },
      transaction: (fn) => ctx.storage.transactionSync(fn),
      config: () => this.config(),
      configChanged: () => void (this.#config = null),
      createdAt: () => this.#binding.createdAt,
      wakeSoon: () => this.alarms.sync(Date.now()),
      wakeBy: (at) => this.#wakeBy(at),
      retention: () => this.retention(),
      schedulePump: () => this.#schedulePump(),
      audit: (by, change) => void this.audit(by, change),
    };
    // An index that was never entered (an unknown tenant named by an unverified key) stays empty:
    // looking it up costs a read and writes nothing.
    if (this.#binding.bound) {
      void ctx.blockConcurrencyWhile(async () => {
        this.migrate();
        // A deletion under way goes on from any wake, even if its alarm was lost (see purgeStorage).
        if (readDeletion(ctx.storage.kv)) await this.alarms.sync(Date.now());
      });
    }
  }

  get binding(): TenantBinding {
    return this.#binding;
  }

  get migrated(): boolean {
    return this.#migrated;
  }

  get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  /** Binds (and on first use registers) the tenant, creates the tables, and hands over the host. */
  async enter(tenantId: string): Promise<IndexHost> {
    await this.#binding.enter(tenantId, Date.now());
    if (!this.#migrated) this.migrate();
    return this.host;
  }

  /**
   * The host for a read: null when no tenant was ever entered here. A read (a platform admin
   * looking up any id) then answers what an empty tenant would, and binds, registers and creates nothing.
   */
  read(tenantId: string): IndexHost | null {
    if (!this.#binding.peek(tenantId)) return null;
    if (!this.#migrated) this.migrate();
    return this.host;
  }

  /** Reads only: it must not bind or register the tenant (see `peek`). */
  findApiKey(tenantId: string, keyId: string): ApiKeyRecord | null {
    const id = requireString("keyId", keyId);
    // Unbound, or bound by a first call still registering: either way no key is stored yet.
    if (!this.#binding.peek(tenantId) || !this.#migrated) return null;
    return findApiKey(this.sql, tenantId, id);
  }

  migrate(): void {
    migrate(this.ctx.storage, TENANT_INDEX_MIGRATIONS);
    this.#migrated = true;
  }

  config(): ConfigState {
    this.#config ??= readConfigState(this.ctx.storage.kv, loadConfig(this.env).defaultLimits);
    return this.#config;
  }

  /** The retention that applies to this tenant (its own, else the platform's), or null: sessions are kept. */
  retention(): RetentionRule | null {
    const config = loadConfig(this.env);
    const days = effectiveRetentionDays(this.config().settings.session_retention_days, config.defaultSessionRetentionDays);
    return days === null ? null : { days, dayMs: config.retentionDayMs };
  }

  /** After the storage went: this instance holds nothing of the tenant either, and binds it never again. */
  forgetTenant(): void {
    this.#binding = this.#newBinding();
    this.#migrated = false;
    this.#config = null;
    this.gone = true;
  }

  /**
   * Writes the entry of a change made here, inside the change's transaction (nested ones are
   * savepoints of it). A platform action is also owed to the registry, and the alarm is set in
   * the same synchronous stretch, so a crash before the hand-over leaves a wake-up that makes it.
   */
  audit(by: AuditContext | undefined, change: AuditChange): AuditEntry {
    const tenantId = this.#binding.tenantId;
    if (!tenantId) throw new Error("audit before the tenant was bound");
    return this.keepAudit(auditEntry(tenantId, by, change, newAuditId(), Date.now()));
  }

  keepAudit(entry: AuditEntry): AuditEntry {
    const now = Date.now();
    const platform = PLATFORM_ACTIONS.has(entry.action);
    this.ctx.storage.transactionSync(() => {
      appendAuditEntry(this.sql, entry, now);
      if (platform) this.platformAudit.enqueue(entry, now);
    });
    if (platform) this.alarms.wakeWithWrite().catch((error: unknown) => log("warn", "audit_wake_not_set", { error: String(error) }));
    return entry;
  }

  #newBinding(): TenantBinding {
    return new TenantBinding(this.ctx.storage.kv, (id, createdAt) => tenantRegistryStub(this.env).register(id, createdAt));
  }

  /** The alarm fires by `at`: an alarm set sooner (even one due already) is never put off. */
  async #wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    await this.alarms.sync(current === null ? at : Math.min(at, current));
  }

  /** Runs the queue pump soon when anyone is queued (a slot may just have been freed). */
  async #schedulePump(): Promise<void> {
    if (queueLength(this.sql) === 0) return;
    await this.alarms.sync(Date.now());
  }
}
