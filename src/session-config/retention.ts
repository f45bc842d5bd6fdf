/**
 * Session retention: how long a tenant's sessions are kept after their last change, and which
 * of them the tenant index's sweep (tenant-index/retention-sweep.ts) may erase. Pure, with `now` passed in.
 */
import { DAY_MS, MAX_SESSION_RETENTION_DAYS, MIN_SESSION_RETENTION_DAYS, RETENTION_RETRY_MS } from "../limits";
import { FINAL_STATUSES, type SessionStatus } from "./types";

export interface RetentionRule {
  days: number;
  /** A day's length in ms (`Config.retentionDayMs`). */
  dayMs: number;
}

/**
 * The statuses a sweep may erase: nothing runs and nobody is asked for anything. A session that
 * is queued, running, paused or waiting (for a person, a client's tool output or its children)
 * is never erased by retention, however long it waits.
 */
export const RETAINABLE_STATUSES: readonly SessionStatus[] = ["idle", ...FINAL_STATUSES];

export function isRetentionErasable(status: SessionStatus): boolean {
  return RETAINABLE_STATUSES.includes(status);
}

/** Whether `days` is a retention a tenant may set (null: keep sessions). */
export function isValidRetentionDays(days: unknown): days is number | null {
  return (
    days === null ||
    (Number.isInteger(days) && (days as number) >= MIN_SESSION_RETENTION_DAYS && (days as number) <= MAX_SESSION_RETENTION_DAYS)
  );
}

/** The retention that applies: the tenant's own, else the platform default; null keeps sessions. */
export function effectiveRetentionDays(tenantDays: number | null, platformDays: number | null): number | null {
  return tenantDays ?? platformDays;
}

/**
 * Sessions whose last change is before this time are expired. `dayMs` is a day's length: `DAY_MS`,
 * shortened by `SESSION_RETENTION_SCALE` in tests only.
 */
export function retentionCutoff(now: number, days: number, dayMs: number): number {
  return now - days * dayMs;
}

/** When the session that changed last at `updatedAt` expires. */
export function expiresAt(updatedAt: number, days: number, dayMs: number): number {
  return updatedAt + days * dayMs;
}

/** The least wait before a pass that left expired rows (kept by their objects) looks again, in the rule's scale. */
export function retryGapMs(rule: RetentionRule): number {
  return Math.max(1, Math.round((RETENTION_RETRY_MS * rule.dayMs) / DAY_MS));
}
