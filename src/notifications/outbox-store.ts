/**
 * What the outbox needs of a session's storage: the notifications owed to the tenant index and
 * the hand-off's retry state. Declared here and passed in; the session object's store
 * (src/sessions/object/store/store.ts) is the one implementation, so notifications/ never imports it.
 */
import type { Notification } from "./types";

/** A notification owed to the tenant index: the notification without its tenant (the session's own). */
export type OwedNotification = Omit<Notification, "tenant_id">;

/** Failed hand-offs in a row, and when the next may be tried (epoch ms). */
export interface HandoffRetry {
  failures: number;
  retry_at: number;
}

/** The session the notifications report, as the hand-off addresses them. */
export interface OutboxSession {
  readonly id: string;
  readonly tenant_id: string;
  readonly notify_url?: string | null;
}

export interface OutboxStore {
  /** Undefined before the session is created and once it is erased. */
  session(): OutboxSession | undefined;
  requireSession(): OutboxSession;
  appendOutbox(entry: OwedNotification): void;
  /** The oldest `limit` notifications owed. */
  outbox(limit: number): readonly Readonly<OwedNotification>[];
  outboxSize(): number;
  removeFromOutbox(ids: readonly string[]): void;
  outboxRetry(): HandoffRetry;
  putOutboxRetry(retry: HandoffRetry): void;
  /** Runs `fn` atomically. */
  transaction<T>(fn: () => T): T;
}
