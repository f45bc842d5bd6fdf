/**
 * What each concern of the tenant index needs of the object (its storage, its cached config,
 * its alarm), so the concerns depend on this narrow host and never on the class.
 */
import type { RetentionRule } from "../../session-config/retention";
import type { AuditChange, AuditContext } from "../../audit/types";
import type { ConfigState } from "../tenant-config";

export interface IndexHost {
  readonly env: Cloudflare.Env;
  readonly sql: SqlStorage;
  readonly kv: SyncKvStorage;
  transaction<T>(fn: () => T): T;
  /** The tenant's config, read once and kept in step by the object's own writes. */
  config(): ConfigState;
  /** Drops the cached config after a write to it. */
  configChanged(): void;
  /** When the tenant was first entered, epoch ms. */
  createdAt(): number;
  /** The alarm fires now, unless it is set to fire sooner already. */
  wakeSoon(): Promise<void>;
  /** The alarm fires by `at`, unless it is set to fire sooner already. */
  wakeBy(at: number): Promise<void>;
  /** The retention that applies to the tenant; null: its sessions are kept. */
  retention(): RetentionRule | null;
  /** Runs the queue pump soon when anyone is queued (a slot may just have been freed). */
  schedulePump(): Promise<void>;
  /**
   * Records a change in the tenant's audit log. Called inside the transaction of the change, so
   * the two commit together; a platform action is also owed to the platform's log (the outbox).
   */
  audit(by: AuditContext | undefined, change: AuditChange): void;
}
