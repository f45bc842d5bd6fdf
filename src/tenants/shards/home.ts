/**
 * Where a session's report, run admission and run slot go: the tenant shard it was placed on at
 * its creation, or the tenant index for a session without one. The one switch between the two,
 * so the session object and the gateway call the same methods either way.
 */
import { tenantIndexStub, tenantShardStub } from "../../objects";
import type { ShardRef } from "../../shared/shard-layout";
import type * as T from "../types";

export interface SessionHome {
  reportSession(report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck>;
  admitSession(input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission>;
  admitRun(input: T.AdmitRunInput): Promise<T.RunAdmission>;
  /** `maxConcurrent` is the index's to judge by; a shard judges by its lease. */
  acquireRun(sessionId: string, maxConcurrent: number, now: number): Promise<T.RunSlot>;
  releaseRun(sessionId: string, failedStart?: boolean): Promise<void>;
}

export function sessionHome(env: Cloudflare.Env, tenantId: string, shard: ShardRef | null | undefined): SessionHome {
  if (shard) {
    const stub = tenantShardStub(env, tenantId, shard);
    return {
      reportSession: (report, notifications) =>
        notifications === undefined
          ? stub.reportSession(tenantId, shard, report)
          : stub.reportSession(tenantId, shard, report, notifications),
      admitSession: (input, report) => stub.admitSession(tenantId, shard, input, report),
      admitRun: (input) => stub.admitRun(tenantId, shard, input),
      acquireRun: (sessionId, _maxConcurrent, now) => stub.acquireRun(tenantId, shard, sessionId, now),
      releaseRun: (sessionId, failedStart) => stub.releaseRun(tenantId, shard, sessionId, failedStart),
    };
  }
  const index = tenantIndexStub(env, tenantId);
  return {
    reportSession: (report, notifications) =>
      notifications === undefined ? index.reportSession(tenantId, report) : index.reportSession(tenantId, report, notifications),
    admitSession: (input, report) => index.admitSession(tenantId, input, report),
    admitRun: (input) => index.admitRun(tenantId, input),
    acquireRun: (sessionId, maxConcurrent, now) => index.acquireRun(tenantId, sessionId, maxConcurrent, now),
    releaseRun: (sessionId, failedStart) => index.releaseRun(tenantId, sessionId, failedStart),
  };
}
