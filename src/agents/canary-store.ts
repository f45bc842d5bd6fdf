/**
 * The `alias_canaries` and `canary_runs` tables (storage.md): one canary per alias at most, its
 * rule and live counts, and the runs already counted so a repeated report counts nothing.
 */
import { toIso } from "../shared/validate";
import { type CanaryCounts, type CanarySpec, type CanaryState, failureRate, meanScore, type RollbackRule } from "./canary";

interface CanaryRow extends Record<string, SqlStorageValue> {
  agent_id: string;
  alias: string;
  version: number;
  percent: number;
  rollback: string | null;
  runs: number;
  failures: number;
  scored: number;
  score_sum: number;
  started_at: number;
}

export interface StoredCanary extends CanarySpec, CanaryCounts {
  alias: string;
  started_at: number;
}

function fromRow(row: CanaryRow): StoredCanary {
  return {
    alias: row.alias,
    version: row.version,
    percent: row.percent,
    rollback: row.rollback === null ? null : (JSON.parse(row.rollback) as RollbackRule),
    runs: row.runs,
    failures: row.failures,
    scored: row.scored,
    score_sum: row.score_sum,
    started_at: row.started_at,
  };
}

export function getCanary(sql: SqlStorage, agentId: string, alias: string): StoredCanary | null {
  const row = sql.exec<CanaryRow>(`SELECT * FROM alias_canaries WHERE agent_id = ? AND alias = ?`, agentId, alias).toArray()[0];
  return row ? fromRow(row) : null;
}

export function canariesOf(sql: SqlStorage, agentId: string): Record<string, CanaryState> {
  const out: Record<string, CanaryState> = {};
  for (const row of sql.exec<CanaryRow>(`SELECT * FROM alias_canaries WHERE agent_id = ? ORDER BY alias`, agentId)) {
    out[row.alias] = toState(fromRow(row));
  }
  return out;
}

export function toState(canary: StoredCanary): CanaryState {
  return {
    version: canary.version,
    percent: canary.percent,
    rollback: canary.rollback,
    runs: canary.runs,
    failures: canary.failures,
    failure_rate: failureRate(canary),
    mean_score: meanScore(canary),
    started_at: toIso(canary.started_at),
  };
}

/**
 * A new canary starts its counts at zero; the same spec set again (a PUT repeated) keeps them, so
 * a retried request does not forget the runs already judged.
 */
export function putCanary(sql: SqlStorage, agentId: string, alias: string, spec: CanarySpec, now: number): void {
  const current = getCanary(sql, agentId, alias);
  const rollback = spec.rollback === null ? null : JSON.stringify(spec.rollback);
  const same =
    current !== null &&
    current.version === spec.version &&
    current.percent === spec.percent &&
    JSON.stringify(current.rollback) === JSON.stringify(spec.rollback);
  if (same) return;
  if (current !== null && current.version === spec.version) {
    // The rule or the share changed, not the version: the runs counted stay counted.
    sql.exec(
      `UPDATE alias_canaries SET percent = ?, rollback = ? WHERE agent_id = ? AND alias = ?`,
      spec.percent,
      rollback,
      agentId,
      alias,
    );
    return;
  }
  deleteCanary(sql, agentId, alias);
  sql.exec(
    `INSERT INTO alias_canaries (agent_id, alias, version, percent, rollback, started_at) VALUES (?, ?, ?, ?, ?, ?)`,
    agentId,
    alias,
    spec.version,
    spec.percent,
    rollback,
    now,
  );
}

/** The canary and the runs it counted; true when there was one. */
export function deleteCanary(sql: SqlStorage, agentId: string, alias: string): boolean {
  sql.exec(`DELETE FROM canary_runs WHERE agent_id = ? AND alias = ?`, agentId, alias);
  return sql.exec(`DELETE FROM alias_canaries WHERE agent_id = ? AND alias = ?`, agentId, alias).rowsWritten > 0;
}

/** Counts one run, once: false when this run of this session was counted already. */
export function countRun(
  sql: SqlStorage,
  agentId: string,
  alias: string,
  run: { session_id: string; run: number; failed: boolean; score: number | null },
): boolean {
  const fresh =
    sql.exec(
      `INSERT OR IGNORE INTO canary_runs (agent_id, alias, session_id, run) VALUES (?, ?, ?, ?)`,
      agentId,
      alias,
      run.session_id,
      run.run,
    ).rowsWritten > 0;
  if (!fresh) return false;
  sql.exec(
    `UPDATE alias_canaries SET runs = runs + 1, failures = failures + ?, scored = scored + ?, score_sum = score_sum + ?
     WHERE agent_id = ? AND alias = ?`,
    run.failed ? 1 : 0,
    run.score === null ? 0 : 1,
    run.score ?? 0,
    agentId,
    alias,
  );
  return true;
}
