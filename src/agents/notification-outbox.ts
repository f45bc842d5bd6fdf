/**
 * The agent store's webhook outbox: an agent's event (a canary rolled back) is written in the
 * transaction of the change it reports and handed to the tenant's index, which delivers it to the
 * endpoints that receive its type; handed over at once and again from the alarm until taken (the
 * index keys deliveries by event and endpoint, so a repeated hand-over delivers nothing twice).
 */
import { log } from "../log";
import { tenantIndexStub } from "../objects";
import type { NotificationBatch } from "../notifications/types";

/** How soon the alarm tries again after a failed hand-over. */
export const NOTIFICATION_HANDOFF_RETRY_MS = 5_000;

export class AgentNotificationOutbox {
  constructor(
    private readonly sql: () => SqlStorage,
    private readonly env: Cloudflare.Env,
  ) {}

  /** Inside the change's transaction. */
  owe(id: string, batch: NotificationBatch, now: number): void {
    this.sql().exec(`INSERT OR IGNORE INTO notification_outbox (id, created_at, batch) VALUES (?, ?, ?)`, id, now, JSON.stringify(batch));
  }

  size(): number {
    return this.sql().exec<{ n: number }>(`SELECT COUNT(*) AS n FROM notification_outbox`).one().n;
  }

  /** Hands over what is owed, oldest first; a failure leaves it owed for the alarm. */
  async flush(tenantId: string): Promise<void> {
    const rows = this.sql()
      .exec<{ id: string; batch: string }>(`SELECT id, batch FROM notification_outbox ORDER BY created_at, id`)
      .toArray();
    for (const row of rows) {
      try {
        await tenantIndexStub(this.env, tenantId).acceptNotifications(tenantId, JSON.parse(row.batch) as NotificationBatch);
      } catch (error) {
        log("warn", "agent_notification_handoff_failed", { tenant_id: tenantId, error: String(error) });
        return;
      }
      this.sql().exec(`DELETE FROM notification_outbox WHERE id = ?`, row.id);
    }
  }

  retryAt(now: number): number | null {
    return this.size() === 0 ? null : now + NOTIFICATION_HANDOFF_RETRY_MS;
  }
}
