/**
 * The `subagents` table: one row per `agent` tool call that started (or is starting) a child
 * session, keyed by the call. `started` = 1 once the child is known to exist; `status`,
 * `stop_reason`, `usage` and `revision` are the child's as last heard (a newer revision only).
 */
import { EMPTY_USAGE, FINAL_STATUSES, type SessionStatus, type StopReason, type Usage } from "../../../session-config/types";

export interface SubagentRow {
  tool_call_id: string;
  session_id: string;
  run_start_seq: number;
  started: boolean;
  status: SessionStatus | null;
  stop_reason: StopReason | null;
  revision: number;
  /** The child's own usage plus its descendants'. */
  usage: Usage;
  cancel_sent: boolean;
  created_at: string;
}

function toRow(row: Record<string, SqlStorageValue>): SubagentRow {
  return {
    tool_call_id: String(row.tool_call_id),
    session_id: String(row.session_id),
    run_start_seq: Number(row.run_start_seq),
    started: row.started === 1,
    status: (row.status ?? null) as SessionStatus | null,
    stop_reason: (row.stop_reason ?? null) as StopReason | null,
    revision: Number(row.revision),
    usage: row.usage ? (JSON.parse(String(row.usage)) as Usage) : { ...EMPTY_USAGE },
    cancel_sent: row.cancel_sent === 1,
    created_at: String(row.created_at),
  };
}

export function subagent(sql: SqlStorage, toolCallId: string): SubagentRow | null {
  const row = sql.exec("SELECT * FROM subagents WHERE tool_call_id = ?", toolCallId).toArray()[0];
  return row ? toRow(row) : null;
}

export function subagents(sql: SqlStorage): SubagentRow[] {
  return sql.exec("SELECT * FROM subagents ORDER BY created_at, tool_call_id").toArray().map(toRow);
}

export function countInRun(sql: SqlStorage, runStartSeq: number): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM subagents WHERE run_start_seq = ?", runStartSeq).one().n;
}

export function insertSubagent(sql: SqlStorage, toolCallId: string, sessionId: string, runStartSeq: number, now: string): void {
  sql.exec(
    "INSERT INTO subagents (tool_call_id, session_id, run_start_seq, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (tool_call_id) DO NOTHING",
    toolCallId,
    sessionId,
    runStartSeq,
    now,
  );
}

export function deleteSubagent(sql: SqlStorage, toolCallId: string): void {
  sql.exec("DELETE FROM subagents WHERE tool_call_id = ?", toolCallId);
}

/** What the parent hears of a child: applied only when newer than what it holds. Returns whether it was. */
export function recordChildState(
  sql: SqlStorage,
  toolCallId: string,
  state: { status: SessionStatus; stop_reason: StopReason | null; revision: number; usage: Usage },
): boolean {
  return (
    sql.exec(
      "UPDATE subagents SET started = 1, status = ?, stop_reason = ?, revision = ?, usage = ? WHERE tool_call_id = ? AND revision < ?",
      state.status,
      state.stop_reason,
      state.revision,
      JSON.stringify(state.usage),
      toolCallId,
      state.revision,
    ).rowsWritten > 0
  );
}

export function markCancelSent(sql: SqlStorage, toolCallId: string): void {
  sql.exec("UPDATE subagents SET cancel_sent = 1 WHERE tool_call_id = ?", toolCallId);
}

/** Two sessions' usage summed, for a session and its descendants (the run's own per-call sum is `addUsage`). */
export function sumUsage(a: Usage, b: Usage): Usage {
  return {
    steps: a.steps + b.steps,
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    cache_write_tokens: a.cache_write_tokens + b.cache_write_tokens,
  };
}

export function isLive(row: SubagentRow): boolean {
  return row.started && (row.status === null || !FINAL_STATUSES.includes(row.status));
}
