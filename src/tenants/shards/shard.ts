/**
 * The TenantShard Durable Object: one per tenant, generation and shard number
 * (`shard/<tenant>/<generation>/<k>`), holding the rows, usage and run slots of the sessions
 * hashed to it (src/shared/shard-layout.ts). A door: each RPC method calls into shard-sessions.ts or the
 * modules the tenant index keeps its own rows with. Storage: ../storage.md, "TenantShard".
 */
import type { AdmissionChange, AdmissionPlace } from "../admission-flow";
import type { ShardAdmission } from "./admission";
import { DurableObject } from "cloudflare:workers";
import type { Page, SessionSummary } from "../../session-config/types";
import { purgeStorage, storageFootprint, type StorageFootprint } from "../../storage/object-storage";
import type { RollupRow } from "../../usage/rollup";
import { requireInt, requireString } from "../../shared/validate";
import * as flow from "../admission-flow";
import * as store from "../sessions-store";
// The index's own reads and removal of session rows, given this shard's tables.
import * as reads from "../tenant-index/sessions";
import type * as T from "../types";
import type { ShardRef } from "../../shared/shard-layout";
import type { TenantShardRpc } from "./rpc";
import type { Lease, Yielded } from "./leases";
import { ShardCore } from "./shard-core";
import * as sessions from "./shard-sessions";
import type { Limits } from "../../limits";
import { type BudgetWait, isBudgetWait } from "../../usage/budgets";
import { sessionsWaitingOn, wakeBudgetWaiters } from "../budget-waits";

export class TenantShard extends DurableObject<Cloudflare.Env> implements TenantShardRpc {
  readonly #core: ShardCore;
  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#core = new ShardCore(ctx, env);
  }
  async reportSession(tenantId: string, shard: ShardRef, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck> {
    return sessions.reportSession(this.#core.enter(tenantId, shard), report, notifications);
  }
  async admitSession(tenantId: string, shard: ShardRef, input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission> {
    return sessions.admitSession(this.#core.enter(tenantId, shard), input, report);
  }
  async admitRun(tenantId: string, shard: ShardRef, input: T.AdmitRunInput): Promise<T.RunAdmission> {
    return sessions.admitRun(this.#core.enter(tenantId, shard), input);
  }
  async acquireRun(tenantId: string, shard: ShardRef, sessionId: string, now: number): Promise<T.RunSlot> {
    return sessions.acquireRun(this.#core.enter(tenantId, shard), sessionId, now);
  }
  async releaseRun(tenantId: string, shard: ShardRef, sessionId: string, failedStart?: boolean): Promise<void> {
    return sessions.releaseRun(this.#core.enter(tenantId, shard), sessionId, failedStart);
  }
  async yieldSpare(tenantId: string, shard: ShardRef, always?: boolean): Promise<Yielded> {
    const core = this.#core.enter(tenantId, shard);
    // Down to what its runs hold: its queue waits for slots as the other shards' queues do.
    return core.lease.yieldTo(store.slotsInUse(core.sql, ""), always === true);
  }
  async leaseAnswered(tenantId: string, shard: ShardRef, lease: Lease): Promise<void> {
    this.#core
      .enter(tenantId, shard)
      .lease.answered({ leased: requireInt("leased", lease.leased, 0), seq: requireInt("seq", lease.seq, 0) });
  }
  async tenantSuspended(tenantId: string, shard: ShardRef, suspended: boolean): Promise<void> {
    // What it keeps to admit the tenant's callers is read again at once (the index tells this before it cancels anything).
    this.#forget(tenantId, { config: true });
    // A shard no session reached yet holds nothing to tell: it asks when its first session comes.
    if (this.#core.read(tenantId)) this.#core.enter(tenantId, shard).heardSuspended(suspended === true);
  }
  async admitRequest(tenantId: string, shard: ShardRef, input: T.AdmitRequestInput): Promise<T.Admission> {
    return flow.admitRequest(await this.#core.admission(tenantId, shard).place(input), input);
  }
  async admitApiKey(tenantId: string, shard: ShardRef, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission> {
    const admission = this.#core.admission(tenantId, shard);
    const answer = await flow.admitApiKey(await this.#keyPlace(admission, keyId, input), tenantId, keyId, input);
    if (answer.admission?.ok) admission.used(keyId, Date.now());
    return answer;
  }
  async admitExchangedToken(tenantId: string, shard: ShardRef, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission> {
    const place = await this.#keyPlace(this.#core.admission(tenantId, shard), keyId, input);
    return flow.admitExchangedToken(place, tenantId, keyId, input);
  }
  async admissionChanged(tenantId: string, shard: ShardRef, change: AdmissionChange): Promise<void> {
    this.#forget(tenantId, change ?? {});
    // Limits or a key's budget may have changed: whether a daily budget is set, and the key's, are read again.
    if (change?.config || change?.keyId !== undefined) this.#core.read(tenantId)?.spend.forget();
  }
  async budgetRaised(tenantId: string, shard: ShardRef, budgets: BudgetWait[], owner: string | null, limits: Limits | null): Promise<void> {
    const core = this.#core.read(tenantId);
    if (!core) return;
    if (!Array.isArray(budgets) || !budgets.every(isBudgetWait)) throw new TypeError("budgets must list budget waits");
    const whose = owner === null ? null : requireString("owner", owner);
    core.spend.forget();
    await wakeBudgetWaiters(this.env, tenantId, sessionsWaitingOn(core.sql, budgets, whose), limits);
  }
  async listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>> {
    return reads.listSessions(this.#sql(tenantId), input);
  }
  async counts(tenantId: string): Promise<T.StatusCounts> {
    return reads.counts(this.#sql(tenantId));
  }
  async usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]> {
    return reads.usage(this.#sql(tenantId), input);
  }
  async usageRollup(tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]> {
    return reads.usageRollup(this.#sql(tenantId), input);
  }
  async getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null> {
    const sql = this.#sql(tenantId);
    return sql && reads.getSessionSummary(sql, sessionId);
  }
  async cancellableSessions(tenantId: string, sessionIds: string[]): Promise<string[]> {
    const sql = this.#sql(tenantId);
    return sql ? reads.cancellableSessions(sql, sessionIds) : [];
  }
  async activeSessionIds(tenantId: string, filter: T.SessionFilter): Promise<string[]> {
    const sql = this.#sql(tenantId);
    return sql ? store.activeSessionIds(sql, store.parseSessionFilter(filter ?? {})) : [];
  }
  async expiredSessionIds(tenantId: string, cutoff: number, limit: number): Promise<string[]> {
    const sql = this.#sql(tenantId);
    return sql ? store.expiredSessionIds(sql, requireInt("cutoff", cutoff, 0), requireInt("limit", limit, 1, 1000)) : [];
  }
  async childSessionIds(tenantId: string, parentId: string): Promise<string[]> {
    const sql = this.#sql(tenantId);
    return sql ? store.childSessionIds(sql, requireString("parentId", parentId)) : [];
  }
  async removeSession(tenantId: string, sessionId: string): Promise<boolean> {
    const core = this.#core.read(tenantId);
    return core ? sessions.removeSession(core, sessionId) : false;
  }
  async sessionIdBatch(tenantId: string, limit: number): Promise<string[]> {
    const sql = this.#sql(tenantId);
    return sql ? store.sessionIdBatch(sql, requireInt("limit", limit, 1, 1000)) : [];
  }
  async dropSessionRows(tenantId: string, sessionIds: string[]): Promise<void> {
    const sql = this.#sql(tenantId);
    if (sql)
      store.dropSessionRows(
        sql,
        sessionIds.map((id, i) => requireString(`sessionIds[${i}]`, id)),
      );
  }
  async purge(tenantId: string): Promise<void> {
    if (!this.#core.read(tenantId)) return;
    await purgeStorage(this.ctx.storage);
    this.#core.forget();
  }
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }
  override async alarm(): Promise<void> {
    if (this.#core.bound) await sessions.runShardAlarm(this.#core);
  }
  /** Where a request made with `keyId` is admitted, its record and the end user's cut-off read first if stale. */
  #keyPlace(admission: ShardAdmission, keyId: string, input: T.AdmitRequestInput): Promise<AdmissionPlace> {
    return admission.place({ keyId: requireString("keyId", keyId), endUser: input?.endUser });
  }
  /** A shard that admitted nobody keeps nothing to forget. */
  #forget(tenantId: string, change: AdmissionChange): void {
    const admitting = this.#core.admitting;
    if (admitting?.tenantId === tenantId) admitting.forget(change);
  }
  #sql(tenantId: string): SqlStorage | null {
    return this.#core.read(tenantId)?.sql ?? null;
  }
}
