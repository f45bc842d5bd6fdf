/**
 * Session retention: how long a tenant's sessions are kept after their last change, and which
 * of them a sweep may erase. Pure rules, with `now` passed in; the sweep itself is sweep.ts.
 */
import { FINAL_STATUSES, type SessionStatus } from "./types";

/** The shortest retention a tenant may set: a day, so a session never vanishes mid-conversation. */
export const MIN_SESSION_RETENTION_DAYS = 1;
/** Ten years: longer is "keep", which is null. */
export const MAX_SESSION_RETENTION_DAYS = 3650;
export const DAY_MS = 24 * 60 * 60 * 1000;
/** Sessions one sweep pass erases at most, so an alarm stays short; the next pass follows at once. */
export const RETENTION_SWEEP_BATCH = 25;
/**
 * The least time between two sweeps that found nothing more to erase now (in retention days'
 * scale): a session the index still shows as expired but its object keeps is asked again no sooner.
 */
export const RETENTION_RETRY_MS = 60 * 60 * 1000;

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
