/**
 * The audit outbox of an object whose entries are read elsewhere (an agent store, a scheduler, a
 * memory store write to their tenant's index; a tenant index copies platform actions to the
 * registry). The entry is written here in the same transaction as the change it records, so no
 * crash keeps one without the other; the caller sets its alarm in the same synchronous stretch
 * (`AlarmClock.wakeWithWrite`), and the entry is handed over at once and again from the alarm
 * until the receiver has it. The receiver ignores an id it already holds, so a repeat adds nothing.
 */
import { log } from "../log";
import { tenantIndexStub } from "../objects";
import type { AlarmClock } from "../storage/alarm-clock";
import { auditEntry, newAuditId } from "./entry";
import type { AuditChange, AuditContext, AuditEntry } from "./types";

/** Entries per hand-over call. */
export const AUDIT_HANDOFF_BATCH = 50;
/** How soon the alarm tries again after a failed hand-over. */
export const AUDIT_HANDOFF_RETRY_MS = 5_000;

export type AuditSend = (entries: AuditEntry[]) => Promise<void>;

export class AuditOutbox {
  /**
   * `alarms`: set to wake just after each `record`, in the same synchronous stretch as the change.
   * `table`: where the `audit_outbox` table is made on first write (storage/on-demand-tables.ts);
   * absent, the object's migrations made it.
   */
  constructor(
    private readonly sql: () => SqlStorage,
    private readonly send: AuditSend,
    private readonly alarms?: AlarmClock,
    private readonly table?: { has(): boolean; ensure(): void },
  ) {}

  /** Called inside the transaction of the change it records. */
  record(tenantId: string, context: AuditContext | undefined, change: AuditChange, now: number): AuditEntry {
    const entry = auditEntry(tenantId, context, change, newAuditId(), now);
    this.enqueue(entry, now);
    // A failed set is not fatal: the next call or wake hands the entry over (the object syncs its alarm then).
    if (this.alarms) this.alarms.wakeWithWrite().catch((error: unknown) => log("warn", "audit_wake_not_set", { error: String(error) }));
    return entry;
  }

  /** Keeps an entry made elsewhere (the same id twice is kept once). */
  enqueue(entry: AuditEntry, now: number): void {
    this.table?.ensure();
    this.sql().exec(`INSERT OR IGNORE INTO audit_outbox (id, created_at, entry) VALUES (?, ?, ?)`, entry.id, now, JSON.stringify(entry));
  }

  size(): number {
    if (this.table && !this.table.has()) return 0;
    return this.sql().exec<{ n: number }>(`SELECT COUNT(*) AS n FROM audit_outbox`).one().n;
  }

  /**
   * Hands over everything owed, batch by batch; true when nothing is left. A failure is logged
   * and leaves the entries owed, for the alarm to try again.
   */
  async flush(): Promise<boolean> {
    if (this.table && !this.table.has()) return true;
    for (;;) {
      const rows = this.sql()
        .exec<{ id: string; entry: string }>(`SELECT id, entry FROM audit_outbox ORDER BY created_at, id LIMIT ?`, AUDIT_HANDOFF_BATCH)
        .toArray();
      if (rows.length === 0) return true;
      try {
        await this.send(rows.map((row) => JSON.parse(row.entry) as AuditEntry));
      } catch (error) {
        log("warn", "audit_handoff_failed", { entries: rows.length, error: String(error) });
        return false;
      }
      const ids = rows.map((row) => row.id);
      this.sql().exec(`DELETE FROM audit_outbox WHERE id IN (${ids.map(() => "?").join(", ")})`, ...ids);
    }
  }

  /** Asked after a `flush` from the alarm: when to try again if anything is still owed, else null. */
  retryAt(now: number): number | null {
    return this.size() === 0 ? null : now + AUDIT_HANDOFF_RETRY_MS;
  }
}

/** The outbox of a tenant's object whose entries go to the tenant's own log, in its index. */
export function tenantAuditOutbox(
  storage: DurableObjectStorage,
  env: Cloudflare.Env,
  tenantId: () => string | null,
  alarms: AlarmClock,
): AuditOutbox {
  return new AuditOutbox(
    () => storage.sql,
    async (entries) => {
      const id = tenantId();
      if (!id) throw new Error("audit hand-over before the tenant was bound");
      await tenantIndexStub(env, id).recordAudit(id, entries);
    },
    alarms,
  );
}
