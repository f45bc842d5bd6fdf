/**
 * A shard's session paths: its sessions' reports, their runs' admission against its lease of
 * slots, and the pump that hands freed slots to its queued sessions. The rows are kept as the
 * tenant index keeps its own (the same modules), and the index is asked only for a lease, for
 * the notifications a report carries, and for the suspension when not told for a while.
 */
import { describeError, log } from "../../log";
import { tenantIndexStub } from "../../objects";
import { requireNow, requireString } from "../../shared/validate";
import { acquireRunSlot, grantedSessions, grantQueuedSlots, nextPumpAt, queueLength, releaseRunSlot } from "../run-slots";
import { parseSessionReport } from "../session-report";
import { getSession } from "../sessions-store";
import { applyReport, dropSession, tellGranted, withNotifications } from "../tenant-index/sessions";
import { holdsReservation, settleReservation } from "../budget-reservations";
import type * as T from "../types";
import { tokensOnDay } from "../usage";
import type { ShardCore } from "./shard-core";
import { LEASE_IDLE_MS, LEASE_RETRY_MS } from "./leases";
import { SPEND_RETRY_MS } from "./spend";
import { RETAINABLE_STATUSES } from "../../session-config/retention";

/** Lease rounds one admission waits through before it is refused as busy. */
const MAX_LEASE_TRIES = 4;

export async function reportSession(core: ShardCore, report: T.SessionReport, notifications?: unknown): Promise<T.ReportAck> {
  const row = parseSessionReport(report);
  const applied = core.transaction(() => settling(core, row.id, () => applyReport(core.sql, row)));
  // A push owed from before (a crash between a settlement and its alarm) goes with a repeated report too.
  if (applied || core.spend.owed()) {
    core.spend.changed(applied && RETAINABLE_STATUSES.includes(row.status));
    await wakeForSlots(core);
  }
  const now = Date.now();
  const ack: T.ReportAck = {
    applied,
    suspended: await core.suspended(now),
    tokens_today: tokensOnDay(core.sql, now),
    spend: { cost_usd: 0, subject_tokens: 0, key_tokens: 0, key_max_tokens_per_day: null },
    // The tenant's whole spending when a daily budget is set: the index's figures of everywhere else and this shard's own.
    ...(await core.spend.ack(row, now)),
  };
  if (notifications === undefined) return ack;
  // Webhook endpoints and deliveries are the tenant's, kept by its index.
  return withNotifications(ack, core.tenantId, row.id, () =>
    tenantIndexStub(core.env, core.tenantId).acceptNotifications(core.tenantId, notifications),
  );
}

/** A run slot from the shard's lease, asking the index for a bigger lease once when none is free. */
export async function acquireRun(core: ShardCore, sessionId: string, now: number): Promise<T.RunSlot> {
  const id = requireString("sessionId", sessionId);
  const at = requireNow(now);
  if (await core.suspended(at)) return { ok: false, code: "suspended" };
  const attempt = () => core.transaction(() => acquireRunSlot(core.sql, id, core.lease.capacity(), at));
  let slot = attempt();
  // No slot free: wait for a lease already asked for, else ask for a bigger one; refused once the index gives no more.
  for (let tries = 0; !slot.ok && slot.code === "busy" && tries < MAX_LEASE_TRIES; tries++) {
    const inFlight = core.leasing;
    const before = core.lease.capacity();
    await (inFlight ?? core.growLease());
    slot = attempt();
    if (!inFlight && core.lease.capacity() <= before) break;
  }
  if (slot.ok) core.lastAdmitAt = Date.now();
  await wakeForSlots(core);
  return slot;
}

/**
 * A run's slot from the shard's lease, then, unless the shard knows no daily budget is set, the
 * index's judgement of every budget and its reservation (./spend.ts; its answer also says whether
 * any is set): one call to the index for a budgeted tenant, none otherwise once known. A refused
 * run gives its slot back.
 */
export async function admitRun(core: ShardCore, input: T.AdmitRunInput): Promise<T.RunAdmission> {
  const named = [input.maxTokensPerDay, input.maxCostUsdPerDay, input.maxTokensPerDayPerSubject].some(
    (budget) => (budget ?? null) !== null,
  );
  const budgeted = named || core.spend.known() !== false;
  const slot = await acquireRun(core, input.sessionId, input.now);
  if (!budgeted || !slot.ok) return slot;
  let admission: T.RunAdmission;
  try {
    admission = await core.spend.admit(input, named);
  } catch (error) {
    // The index may have recorded a reservation this shard never heard of: the push owed from here drops it.
    core.transaction(() => core.spend.owe());
    core.spend.changed();
    // Out of reach, with no budget named and none set when the index last said: the run starts on its slot.
    if (!named && core.spend.lastHeard() === false) {
      log("warn", "shard_spend_unread", { tenant_id: core.tenantId, session_id: input.sessionId, error: describeError(error) });
      return slot;
    }
    await releaseRun(core, input.sessionId);
    throw error;
  }
  if (!admission.ok) await releaseRun(core, input.sessionId);
  return admission;
}

/** As the index's `admitSession`: a session listed already was admitted by an earlier call whose answer was lost. */
export async function admitSession(core: ShardCore, input: T.AdmitRunInput, report: T.SessionReport): Promise<T.SessionAdmission> {
  const { id } = parseSessionReport(report);
  if (getSession(core.sql, id) === null) {
    const admission = await admitRun(core, { ...input, sessionId: id });
    if (!admission.ok) return admission;
  }
  return { ok: true, ack: await reportSession(core, report) };
}

export async function releaseRun(core: ShardCore, sessionId: string, failedStart = false): Promise<void> {
  const id = requireString("sessionId", sessionId);
  core.transaction(() => {
    releaseRunSlot(core.sql, id);
    if (failedStart === true) settling(core, id, () => settleReservation(core.sql, id));
  });
  core.spend.changed();
  await wakeForSlots(core);
}

/** A session's row removed (the index's retention or erase), its reservation with it. */
export async function removeSession(core: ShardCore, sessionId: string): Promise<boolean> {
  const id = requireString("sessionId", sessionId);
  const removed = core.transaction(() => settling(core, id, () => dropSession(core.sql, id, Date.now())));
  core.spend.changed();
  await wakeForSlots(core);
  return removed;
}

/** Runs `change` (inside the caller's transaction); a reservation of `sessionId` it ended is owed to the index (./spend.ts). */
function settling<R>(core: ShardCore, sessionId: string, change: () => R): R {
  const held = holdsReservation(core.sql, sessionId);
  const result = change();
  if (held && !holdsReservation(core.sql, sessionId)) core.spend.owe();
  return result;
}

/**
 * The shard's alarm: free slots of its lease go to its queued sessions, oldest first (a bigger
 * lease is asked for while some still wait), and spare slots go back to the index once no run was
 * admitted here for `LEASE_IDLE_MS`.
 */
export async function runShardAlarm(core: ShardCore): Promise<void> {
  const now = Date.now();
  if (queueLength(core.sql) > 0 && !(await core.suspended(now))) {
    grant(core, now);
    if (queueLength(core.sql) > grantedSessions(core.sql).length) {
      await core.askLease(core.demand());
      grant(core, now);
    }
    await tellGranted(core.env, core.tenantId, grantedSessions(core.sql));
  }
  if (core.spend.owed()) await core.spend.flush();
  const idleSince = now - core.lastAdmitAt;
  if (idleSince >= LEASE_IDLE_MS && core.lease.capacity() > core.demand()) await core.askLease(core.demand());
  await wakeForSlots(core);
}

function grant(core: ShardCore, now: number): void {
  core.transaction(() => grantQueuedSlots(core.sql, core.lease.capacity(), now));
}

/** Sets the alarm for what the slots need next: the queue pump, a retold grant, or the return of spare slots. */
async function wakeForSlots(core: ShardCore): Promise<void> {
  const now = Date.now();
  const times: number[] = [];
  const pump = nextPumpAt(core.sql, now);
  if (pump !== null) times.push(pump);
  if (queueLength(core.sql) > grantedSessions(core.sql).length) times.push(now + LEASE_RETRY_MS);
  if (core.lease.capacity() > core.demand()) times.push(Math.max(now, core.lastAdmitAt + LEASE_IDLE_MS));
  if (core.spend.owed()) times.push(now + SPEND_RETRY_MS);
  if (times.length > 0) await core.alarms.sync(Math.max(now + 1, Math.min(...times)));
}
