/** The `steps` table: one row per unit of work, its timing and outcome; the newest `MAX_STORED_STEPS` kept. */
import type { UnitKind, UnitOutcome } from "../../types";

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
