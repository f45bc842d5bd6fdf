/**
 * The session object's notification outbox. A status change that notifies writes its notification here in
 * the same transaction as the change itself (the session engine's `updateRun`), so no crash can keep one
 * without the other. The tenant index delivers: the outbox rides along with the report of the
 * status change that wrote it (one call to the index for both), or is handed over on its own when
 * no report is due; a hand-off that fails is tried again from the alarm with backoff for as long
 * as it takes, and an erase hands over whatever is still owed before the storage goes.
 * The index ignores an event id it already has, so a hand-off repeated after a lost answer adds
 * nothing.
 */
import { log } from "../log";
import { newEventId } from "./ids";
import { handoffRetryDelay } from "./schedule";
import type { NotificationBatch, NotificationSession, NotificationType } from "./types";
import { tenantIndexStub } from "../objects";
import type { OutboxStore } from "./outbox-store";
import type { CredentialRequired } from "../egress/credentials";

/** Notifications per hand-off call; a session rarely owes more than one or two. */
export const HANDOFF_BATCH = 100;

/**
 * `refused`: the index answered that it will never take the batch (a malformed notification, a
 * bug): retrying cannot help, so an erase goes ahead without it. `failed`: it may pass.
 */
export type HandoffResult = "nothing_owed" | "not_due" | "handed_off" | "failed" | "refused";

export class Outbox {
  constructor(
    private readonly store: OutboxStore,
    private readonly env: Cloudflare.Env,
  ) {}

  /** Whether a notification was recorded since the last `takeUnarmed`, whose wake-up is not set yet. */
  #unarmed = false;

  /** Called inside the transaction of the status change that owes the notification. */
  record(type: NotificationType, session: NotificationSession, credential?: CredentialRequired): void {
    this.store.appendOutbox({ id: newEventId(), type, created_at: session.updated_at, session, ...(credential ? { credential } : {}) });
    this.#unarmed = true;
  }

  /** True once after a `record`: the caller sets the alarm that hands the notification over. */
  takeUnarmed(): boolean {
    const unarmed = this.#unarmed;
    this.#unarmed = false;
    return unarmed;
  }

  /** When the next hand-off is due (epoch ms, at the earliest `now`), or null when nothing is owed. */
  dueAt(now: number): number | null {
    if (this.store.outboxSize() === 0) return null;
    return Math.max(now, this.store.outboxRetry().retry_at);
  }

  /**
   * The owed notifications as one batch for the tenant index, or null when nothing is owed. A
   * report of the status change that owes them carries them (`reconcile` in the session engine):
   * the index then hears of both in one call.
   */
  batch(): NotificationBatch | null {
    const entries = this.store.outbox(HANDOFF_BATCH);
    if (entries.length === 0) return null;
    const session = this.store.requireSession();
    return {
      session_id: session.id,
      notify_url: session.notify_url ?? null,
      notifications: entries.map((entry) => ({ ...entry, tenant_id: session.tenant_id })),
    };
  }

  /** The index has `batch`: it is no longer owed, and any backoff ends. */
  acknowledge(batch: NotificationBatch): void {
    if (!this.store.session()) return; // erased meanwhile
    this.store.transaction(() => {
      this.store.removeFromOutbox(batch.notifications.map((n) => n.id));
      this.store.putOutboxRetry({ failures: 0, retry_at: 0 });
    });
  }

  /** A hand-off failed: the next one waits out a backoff (the outbox itself is kept as it is). */
  failed(error: unknown): void {
    const session = this.store.session();
    if (!session) return; // erased meanwhile: nothing left to record
    const failures = this.store.outboxRetry().failures + 1;
    const retryIn = handoffRetryDelay(failures);
    log("warn", "notification_handoff_failed", {
      tenant_id: session.tenant_id,
      session_id: session.id,
      owed: this.store.outboxSize(),
      failures,
      retry_in_ms: retryIn,
      error: String(error),
    });
    this.store.putOutboxRetry({ failures, retry_at: Date.now() + retryIn });
  }

  /**
   * Hands every owed notification to the tenant index if a hand-off is due (`force`: even during
   * a backoff, as an erase must). A failure is recorded for a later try, never thrown. A forced
   * hand-off of a batch the index refuses for good goes one notification at a time, so only the
   * ones refused on their own are left behind (and logged) when the session goes.
   */
  async handOff(force = false): Promise<HandoffResult> {
    let result: HandoffResult = "nothing_owed";
    for (;;) {
      const due = this.dueAt(Date.now());
      if (due === null) return result;
      if (!force && due > Date.now()) return "not_due";
      const batch = this.batch()!;
      const sent = await this.#send(batch);
      if (sent === "refused" && force) return this.#handOffOneByOne(batch);
      if (sent !== "handed_off") return sent;
      if (!this.store.session()) return "handed_off";
      this.acknowledge(batch);
      result = "handed_off";
    }
  }

  async #send(batch: NotificationBatch): Promise<"handed_off" | "failed" | "refused"> {
    const tenantId = this.store.requireSession().tenant_id;
    try {
      await tenantIndexStub(this.env, tenantId).acceptNotifications(tenantId, batch);
      return "handed_off";
    } catch (error) {
      this.failed(error);
      return isRefusal(error) ? "refused" : "failed";
    }
  }

  /** Each notification of a refused batch on its own; those refused alone are dropped. */
  async #handOffOneByOne(batch: NotificationBatch): Promise<HandoffResult> {
    let result: HandoffResult = "handed_off";
    for (const notification of batch.notifications) {
      if (!this.store.session()) return "handed_off";
      const single = { ...batch, notifications: [notification] };
      const sent = await this.#send(single);
      if (sent === "failed") return "failed";
      if (sent === "refused") {
        result = "refused";
        log("error", "notification_dropped", {
          tenant_id: notification.tenant_id,
          session_id: batch.session_id,
          event_id: notification.id,
          type: notification.type,
        });
      }
      if (this.store.session()) this.store.removeFromOutbox([notification.id]);
    }
    return result;
  }
}

/** The index's argument checks throw these, and they keep their names across RPC: retrying cannot help. */
function isRefusal(error: unknown): boolean {
  const name = error instanceof Error ? error.name : "";
  return name === "TypeError" || name === "RangeError";
}
