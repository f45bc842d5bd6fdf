/**
 * The `steps` table: one row per unit of work, its timing and outcome; the newest `MAX_STORED_STEPS`
 * kept. `seq` is the rowid (no AUTOINCREMENT and its counter row): pruning never removes the newest
 * row, so a new row's seq is always past every one given out before.
 */
import type { UnitKind, UnitOutcome } from "../../../session-config/types";

/** Unit timings kept per session: enough to see where a long session's time went. */
export const MAX_STORED_STEPS = 1_000;
const STEP_PRUNE_EVERY = 100;

/** One unit of work as stored; times are epoch ms. */
export interface StepRecord {
  seq: number;
  kind: UnitKind;
  started_at: number;
  ended_at: number;
  queued_ms: number;
  input_tokens: number | null;
  output_tokens: number | null;
  outcome: UnitOutcome;
}

export function appendStep(sql: SqlStorage, step: Omit<StepRecord, "seq">): void {
  const { seq } = sql
    .exec<{ seq: number }>(
      "INSERT INTO steps (kind, started_at, ended_at, queued_ms, input_tokens, output_tokens, outcome) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq",
      step.kind,
      step.started_at,
      step.ended_at,
      step.queued_ms,
      step.input_tokens,
      step.output_tokens,
      step.outcome,
    )
    .one();
  // Pruned in batches, so most units write one row and delete none.
  if (seq % STEP_PRUNE_EVERY === 0) sql.exec("DELETE FROM steps WHERE seq <= ?", seq - MAX_STORED_STEPS);
}

/** When the newest unit ended (epoch ms), or 0 before the first. */
export function lastStepEnd(sql: SqlStorage): number {
  const row = sql.exec<{ ended_at: number }>("SELECT ended_at FROM steps ORDER BY seq DESC LIMIT 1").toArray()[0];
  return row ? Number(row.ended_at) : 0;
}

export function steps(sql: SqlStorage, after: number, limit: number): StepRecord[] {
  return sql
    .exec<Record<string, SqlStorageValue>>("SELECT * FROM steps WHERE seq > ? ORDER BY seq LIMIT ?", after, limit)
    .toArray()
    .map((row) => ({
      seq: Number(row.seq),
      kind: String(row.kind) as StepRecord["kind"],
      started_at: Number(row.started_at),
      ended_at: Number(row.ended_at),
      queued_ms: Number(row.queued_ms),
      input_tokens: row.input_tokens === null ? null : Number(row.input_tokens),
      output_tokens: row.output_tokens === null ? null : Number(row.output_tokens),
      outcome: String(row.outcome) as StepRecord["outcome"],
    }));
}
