/**
 * The tenant index's alarm: a list of stages run in order (the run-slot pump, a bounded pass of
 * notification deliveries, a bounded pass of the retention sweep), then the alarm set by one pure
 * rule, `nextAlarmAt`, for the earliest of what each still has due. While the tenant is being
 * deleted, the deletion's pass runs alone.
 */
import { nextDueAt } from "../../notifications/delivery-store";
import { retryGapMs, type RetentionRule } from "../../session-config/retention";
import { nextPumpAt } from "../run-slots";
import { readDeletion } from "../tenant-deletion";
import type { IndexCore } from "./core";
import { deletionPass } from "./deletion";
import { deliverNotifications } from "./notifications";
import { nextExpiry, type SessionEraser, sweepExpired } from "./retention-sweep";
import { grantSlots } from "./sessions";
import { allShards } from "./across-shards";
import { describeError, log } from "../../log";
import { shardRows } from "../shards/rows";

/** What the index has due once its stages ran, epoch ms (null: nothing of that kind). */
export interface IndexDue {
  /** A suspended tenant's queue does not move: its pump is not due. */
  suspended: boolean;
  pumpAt: number | null;
  deliveryAt: number | null;
  /** When the next session expires. */
  expiryAt: number | null;
  /** A sweep that left rows their objects kept looks again no sooner. */
  sweepNotBefore: number;
  auditRetryAt: number | null;
}

/** Pure: when the alarm fires next, or null for none. */
export function nextAlarmAt(due: IndexDue): number | null {
  const times = [
    due.suspended ? null : due.pumpAt,
    due.deliveryAt,
    due.expiryAt === null ? null : Math.max(due.expiryAt, due.sweepNotBefore),
    due.auditRetryAt,
  ].filter((at): at is number => at !== null);
  return times.length === 0 ? null : Math.min(...times);
}

export type AlarmHost = Pick<
  IndexCore,
  | "ctx"
  | "env"
  | "sql"
  | "host"
  | "alarms"
  | "platformAudit"
  | "forgetTenant"
  | "config"
  | "retention"
  | "sweepNotBefore"
  | "shardsBehind"
  | "eraser"
>;

type Stage = (core: AlarmHost, eraser: SessionEraser, tenantId: string) => Promise<void>;

/** In order: the run-slot pump, the notification deliveries, the retention sweep. A stage that throws ends the alarm (the runtime retries it). */
const STAGES: readonly Stage[] = [
  (core, _eraser, tenantId) => grantSlots(core.host, tenantId),
  (core, _eraser, tenantId) => deliverNotifications(core.host, tenantId),
  (core, eraser, tenantId) => sweep(core, eraser, tenantId),
];

export async function runAlarm(core: AlarmHost, tenantId: string): Promise<void> {
  await core.platformAudit.flush();
  const deleting = readDeletion(core.ctx.storage.kv);
  if (deleting) return deletionPass(core, tenantId, deleting);
  for (const stage of STAGES) await stage(core, core.eraser, tenantId);
  await core.alarms.sync(nextAlarmAt(indexDue(core, Date.now())));
}

/** One bounded pass; a pass that left kept rows waits `retryGapMs` before the next. */
async function sweep(core: AlarmHost, eraser: SessionEraser, tenantId: string): Promise<void> {
  const rule = core.retention();
  const now = Date.now();
  if (!rule || now < core.sweepNotBefore) return;
  const pass = await sweepExpired(core.host, eraser, tenantId, rule, now);
  // Each shard's rows, a pass each; a shard that cannot be reached is looked at again next time.
  let full = pass.full;
  for (const ref of allShards(core.host)) {
    try {
      full = (await sweepExpired(core.host, eraser, tenantId, rule, now, shardRows(core.env, tenantId, ref))).full || full;
    } catch (error) {
      log("warn", "retention_shard_unswept", {
        tenant_id: tenantId,
        generation: ref.generation,
        shard: ref.k,
        error: describeError(error),
      });
    }
  }
  core.sweepNotBefore = full ? 0 : Date.now() + retryGapMs(rule);
  core.shardsBehind = full;
}

function indexDue(core: AlarmHost, now: number): IndexDue {
  const rule = core.retention();
  return {
    suspended: core.config().suspended,
    pumpAt: nextPumpAt(core.sql, now),
    deliveryAt: nextDueAt(core.sql),
    // A shard's sessions expire unseen here: with shards, the sweep also looks every retry gap.
    expiryAt: rule ? earliest(nextExpiry(core.sql, rule), shardsSweepAt(core, rule, now)) : null,
    sweepNotBefore: core.sweepNotBefore,
    auditRetryAt: core.platformAudit.retryAt(now),
  };
}

/** With shards: at once while a pass left a full batch, else every retry gap. */
function shardsSweepAt(core: AlarmHost, rule: RetentionRule, now: number): number | null {
  if (allShards(core.host).length === 0) return null;
  return core.shardsBehind ? now : now + retryGapMs(rule);
}

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  return b === null ? a : Math.min(a, b);
}
