/**
 * The end of every control and unit: the alarm made to follow what is due next, and the report
 * and notifications the tenant index is owed, so neither ever depends on a caller remembering.
 */
import { approvalsCanExpire, earliestApprovalDeadline } from "../loop/approval-expiry";
import { nextWakeAt } from "../loop/next-wake";
import { shouldReport } from "../report/report-policy";
import type { ReportAck } from "../../../tenants/types";
import { ACTIVE_STATUSES } from "../../../session-config/types";
import { isLive, requireLive, stillLive, unlessGone } from "./gone";
import type { AlarmClock } from "../../../storage/alarm-clock";
import type { Outbox } from "../../../notifications/outbox";
import type { TraceExporter } from "../../../traces/exporter";
import type { AuditOutbox } from "../../../audit/outbox";
import type { EventLog } from "../events/event-log";
import type { Reporter } from "../report/reporter";
import type { SessionStore } from "../store/store";
import type { Toolbox } from "../tools/registry";

/** A session's ties to its parent and children (subagents/family.ts): what they owe, and when next. */
export interface FamilyHooks {
  dueAt(now: number): number | null;
  /**
   * Settles what is owed now; `fromAlarm`: this is the alarm's reconcile, the one that cancels
   * orphaned children. True when it sent anything (the alarm is then synced again); false at once
   * when nothing is owed now.
   */
  settle(fromAlarm: boolean): Promise<boolean> | false;
  /** Inside the transaction that ends a run, before a queued message starts the next: what must be kept of the run that ended. */
  runEnded?(): void;
}

/** What reconciling needs of the engine: the parts it reads to find what is due, and the run's cancel. */
export interface ReconcileHost {
  readonly family: FamilyHooks | null;
  readonly store: SessionStore;
  readonly events: EventLog;
  readonly reporter: Reporter;
  readonly outbox: Outbox;
  readonly traces: TraceExporter;
  readonly audit: AuditOutbox;
  readonly alarms: AlarmClock;
  toolbox(): Toolbox;
  cancelRun(): void;
}

/**
 * Syncs the alarm for what is due next, then sends the report the index is owed if it is due
 * now, with the notifications owed riding along; then hands over on their own any still owed
 * (a retry). The alarm comes first, so a slow or failing report never delays (or, with a crash,
 * loses) the next step; again after, since both changed what is due.
 */
export function reconcile(engine: ReconcileHost, fromAlarm = false): Promise<void> {
  // An erase may come in at any await: the rest is then moot (`SessionGone`, from the engine's check).
  return unlessGone(
    () => settle(engine, fromAlarm),
    () => undefined,
  );
}

async function settle(engine: ReconcileHost, fromAlarm: boolean): Promise<void> {
  const { store, outbox } = engine;
  requireLive(store);
  // Spans owed go to the collector beside the loop, never in its way.
  engine.traces.kick();
  await stillLive(store, syncAlarm(engine));
  let acted = false;
  // A create whose admission is still owed makes no report of its own: the admission carries its row.
  if (store.admissionOwed() === undefined && shouldReport(store.run(), Date.now(), engine.reporter.usageReportMs())) {
    acted = true;
    const ack = await stillLive(store, report(engine));
    // A start admitted just before its tenant was suspended, or a run the suspension sweep
    // missed, learns it here and stops; the final status is reported in turn.
    if (ack?.suspended && ACTIVE_STATUSES.includes(store.run().status)) {
      engine.cancelRun();
      await stillLive(store, report(engine));
    }
  }
  // Each hand-over is awaited only when something is owed: an await of nothing would end the
  // synchronous stretch all the same, and the reads after it would go to storage again.
  if (outbox.dueAt(Date.now()) !== null && (await stillLive(store, outbox.handOff())) !== "nothing_owed") acted = true;
  if (engine.audit.size() > 0) {
    await stillLive(store, engine.audit.flush());
    acted = true;
  }
  const settling = engine.family?.settle(fromAlarm);
  if (settling && (await stillLive(store, settling))) acted = true;
  if (acted) await syncAlarm(engine);
}

/** The alarm at or before the next wake `nextWakeAt` asks for, or none when nothing is due. */
export async function syncAlarm(engine: ReconcileHost): Promise<void> {
  const { store } = engine;
  if (!isLive(store)) return;
  const now = Date.now();
  // An admission still owed is asked when its next ask is due, and nothing runs before it is answered.
  const target =
    store.admissionOwed() !== undefined
      ? Math.max(now, store.admissionAskAt)
      : nextWakeAt(store.run(), now, {
          socketDeadline: engine.events.streams.earliestSocketDeadline(),
          notificationsDueAt: engine.outbox.dueAt(now),
          auditDueAt: engine.audit.retryAt(now),
          approvalDeadline: approvalsCanExpire(engine.toolbox()) ? earliestApprovalDeadline(store.openToolCalls(), engine.toolbox()) : null,
          familyDueAt: engine.family?.dueAt(now) ?? null,
          tracesDueAt: engine.traces.dueAt(now),
          usageReportMs: engine.reporter.usageReportMs(),
        });
  // Erased while the alarm was read: no alarm for storage that is gone.
  await engine.alarms.sync(target, () => isLive(store));
}

/**
 * One call to the index for the report and what the session owes it: one status change, one call.
 * Also the erase's last report (control/erase.ts), so what a run spent is counted before it goes.
 */
export async function report(engine: Pick<ReconcileHost, "outbox" | "store" | "reporter">): Promise<ReportAck | null> {
  const { outbox, store } = engine;
  const batch = outbox.batch();
  const ack = await engine.reporter.send(batch);
  if (!batch || !isLive(store)) return ack;
  if (ack?.notifications_taken) outbox.acknowledge(batch);
  else outbox.failed(ack ? "the index refused the notifications" : "the report with the notifications failed");
  return ack;
}
