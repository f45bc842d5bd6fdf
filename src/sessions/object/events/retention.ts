/**
 * How long a session's event log keeps its events, and what a watcher gets for its cursor. Pure:
 * the log's bounds and the cursor go in, the decision comes out.
 */
import { DAY_MS } from "../../../tenants/usage";

/** Events kept per session: several runs' worth (a 20-step run with tools stores about 150). */
export const EVENT_RETENTION_COUNT = 1_000;
/** Events older than this are dropped the next time the session is touched. */
export const EVENT_RETENTION_MS = 7 * DAY_MS;
/** Count pruning waits for this many events beyond the bound: one delete per batch, not per event. */
export const EVENT_PRUNE_BATCH = 100;

export interface LogBounds {
  /** The newest event id ever stored (0: none yet). Ids are never reused, even once pruned. */
  lastId: number;
  /** Every event up to this id was pruned (0: none). */
  prunedThrough: number;
}

export type ReplayPlan =
  /** A snapshot first; `reset` when the watcher's cursor could not be honoured. */
  | { kind: "snapshot"; reset: boolean }
  /** Every stored event after `after`, then live ones. */
  | { kind: "replay"; after: number };

/**
 * No cursor: a snapshot. A cursor whose next events were pruned, or one from beyond the log (not
 * a cursor this session gave out), cannot be resumed without a gap: a snapshot marked `reset`.
 */
export function planReplay(cursor: number | null, log: LogBounds): ReplayPlan {
  if (cursor === null) return { kind: "snapshot", reset: false };
  if (cursor < log.prunedThrough || cursor > log.lastId) return { kind: "snapshot", reset: true };
  return { kind: "replay", after: cursor };
}

/**
 * The id through which events must go to respect the count bound, or null while within it plus
 * a batch. `lastId - prunedThrough` is how many events the table can hold at most.
 */
export function countPruneThrough(log: LogBounds): number | null {
  if (log.lastId - log.prunedThrough <= EVENT_RETENTION_COUNT + EVENT_PRUNE_BATCH) return null;
  return log.lastId - EVENT_RETENTION_COUNT;
}

/** The creation time before which events are too old to keep. */
export function ageCutoff(now: number): number {
  return now - EVENT_RETENTION_MS;
}
