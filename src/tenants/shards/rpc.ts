/**
 * What a tenant shard answers over RPC (src/env.ts types its namespace by it). Every call names
 * its tenant first, and the session paths name the shard too: the object binds both on first use
 * and throws when a later call names others.
 */
import type { AdmissionChange } from "../admission-flow";
import type { Page, SessionSummary } from "../../session-config/types";
import type { StorageFootprint } from "../../storage/object-storage";
import type { RollupRow } from "../../usage/rollup";
import type * as T from "../types";
import type { ShardRef } from "../../shared/shard-layout";
import type { Lease, Yielded } from "./leases";
import type { Limits } from "../../limits";
import type { BudgetWait } from "../../usage/budgets";

export interface TenantShardRpc {
  // --- the paths of its sessions, as the tenant index answers them for the sessions it holds

  reportSession(tenantId: string, shard: ShardRef, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck>;
  admitSession(tenantId: string, shard: ShardRef, input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission>;
  admitRun(tenantId: string, shard: ShardRef, input: T.AdmitRunInput): Promise<T.RunAdmission>;
  acquireRun(tenantId: string, shard: ShardRef, sessionId: string, now: number): Promise<T.RunSlot>;
  releaseRun(tenantId: string, shard: ShardRef, sessionId: string, failedStart?: boolean): Promise<void>;
  /**
   * The index takes the spare slots back: the shard's smaller request, written before it answers
   * (`always`: a new request even with nothing spare, for the index to record a lease under its runs).
   */
  yieldSpare(tenantId: string, shard: ShardRef, always?: boolean): Promise<Yielded>;
  /** The lease the index recorded for a yield, when smaller than the yield asked (a lowered limit). */
  leaseAnswered(tenantId: string, shard: ShardRef, lease: Lease): Promise<void>;
  /** The index says the tenant was suspended or unsuspended (it says so on every lease answer too). */
  tenantSuspended(tenantId: string, shard: ShardRef, suspended: boolean): Promise<void>;

  // --- the admission of the callers whose rate bucket hashes here (./admission.ts), as the index admits them

  admitRequest(tenantId: string, shard: ShardRef, input: T.AdmitRequestInput): Promise<T.Admission>;
  admitApiKey(tenantId: string, shard: ShardRef, keyId: string, input: T.AdmitApiKeyInput): Promise<T.ApiKeyAdmission>;
  admitExchangedToken(tenantId: string, shard: ShardRef, keyId: string, input: T.AdmitRequestInput): Promise<T.ApiKeyAdmission>;
  /** The index changed what `change` names: the shard reads it again on next use. */
  admissionChanged(tenantId: string, shard: ShardRef, change: AdmissionChange): Promise<void>;
  /** A daily budget went up: the shard's sessions waiting on one of `budgets` of `owner` (null: anyone's) are told, as the index tells its own. */
  budgetRaised(tenantId: string, shard: ShardRef, budgets: BudgetWait[], owner: string | null, limits: Limits | null): Promise<void>;

  // --- what the index reads and changes of the shard's rows (reads answer as an empty shard before any session)

  listSessions(tenantId: string, input: T.ListSessionsInput): Promise<Page<SessionSummary>>;
  counts(tenantId: string): Promise<T.StatusCounts>;
  usage(tenantId: string, input: T.UsageInput): Promise<T.UsageDay[]>;
  usageRollup(tenantId: string, input: T.UsageRollupInput): Promise<RollupRow[]>;
  getSessionSummary(tenantId: string, sessionId: string): Promise<SessionSummary | null>;
  cancellableSessions(tenantId: string, sessionIds: string[]): Promise<string[]>;
  activeSessionIds(tenantId: string, filter: T.SessionFilter): Promise<string[]>;
  /** Ids of the sessions a retention may erase whose last change is older than `cutoff`, oldest first (as the index's sweep reads its own). */
  expiredSessionIds(tenantId: string, cutoff: number, limit: number): Promise<string[]>;
  childSessionIds(tenantId: string, parentId: string): Promise<string[]>;
  /** The row and its run-slot rows go, a tombstone stays; false when there was no row. */
  removeSession(tenantId: string, sessionId: string): Promise<boolean>;
  /** A batch of session ids for a tenant's deletion (the index purges their objects, then `dropSessionRows`). */
  sessionIdBatch(tenantId: string, limit: number): Promise<string[]>;
  dropSessionRows(tenantId: string, sessionIds: string[]): Promise<void>;
  /** Deletes all storage (a tenant's deletion, once no session is left). */
  purge(tenantId: string): Promise<void>;
  footprint(): Promise<StorageFootprint>;
}

declare module "../../env" {
  interface ObjectRpcs {
    TENANT_SHARD: TenantShardRpc;
  }
}
