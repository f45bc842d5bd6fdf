/**
 * The `tool_calls` table: every call the model asked for, keyed by its id (the model's `tool_use`
 * id, unique in the session), with its place in call order (message_seq, position), its status,
 * output, restarts and, for a call that needed approval, the decision. One key and no second
 * index, since each index is a row written with every insert (migration 15): the loop finds a
 * call by id, and the open calls through their message; only the pages of the tool-call list
 * read the table in call order, and they sort it.
 */
import type { IntPairCursor } from "../../../shared/cursor";
import type { ToolCall, ToolCallDecision, ToolCallPolicy, ToolCallStatus } from "../../../session-config/types";
import { takeWithin, textChars } from "./bounded-page";

export interface NewToolCall {
  id: string;
  step: number;
  messageSeq: number;
  position: number;
  name: string;
  input: unknown;
  status: ToolCallStatus;
  now: string;
  /** The tool policy's decision, when a policy judged the call. */
  policy?: ToolCallPolicy | null;
}

export function insertToolCall(sql: SqlStorage, call: NewToolCall): void {
  sql.exec(
    "INSERT INTO tool_calls (id, step, message_seq, position, name, input, status, created_at, policy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    call.id,
    call.step,
    call.messageSeq,
    call.position,
    call.name,
    JSON.stringify(call.input ?? null),
    call.status,
    call.now,
    call.policy ? JSON.stringify(call.policy) : null,
  );
}

export function toolCall(sql: SqlStorage, id: string): ToolCall | undefined {
  const row = sql.exec("SELECT * FROM tool_calls WHERE id = ?", id).toArray()[0];
  return row ? toToolCall(row) : undefined;
}

export function toolCallPage(
  sql: SqlStorage,
  after: IntPairCursor | null,
  limit: number,
  maxChars: number = Number.MAX_SAFE_INTEGER,
): { calls: ToolCall[]; next: IntPairCursor | null } {
  const seq = after?.first ?? -1;
  const position = after?.second ?? -1;
  const cursor = sql.exec(
    "SELECT * FROM tool_calls WHERE message_seq > ? OR (message_seq = ? AND position > ?) ORDER BY message_seq, position",
    seq,
    seq,
    position,
  );
  const { rows: page, more } = takeWithin(cursor, limit, maxChars, (row) => textChars(row, ["input", "output"]));
  const last = page[page.length - 1];
  const next = more && last ? { first: Number(last.message_seq), second: Number(last.position) } : null;
  return { calls: page.map(toToolCall), next };
}

export function toolCalls(sql: SqlStorage): ToolCall[] {
  return sql.exec("SELECT * FROM tool_calls ORDER BY message_seq, position").toArray().map(toToolCall);
}

/**
 * The calls of the messages after the newest tool_result message: that message is written, once
 * every call of a response has its result, in the transaction of the last one (tool-results.ts),
 * so it is the one record of which calls the model has seen the results of. Reads the newest
 * message rows back to that message, the `tool_use` blocks of the assistant's among them (a call
 * is saved with the message that holds its block, model-step.ts), and those calls by id.
 */
export function openToolCalls(sql: SqlStorage): ToolCall[] {
  return sql.exec(OPEN_TOOL_CALLS).toArray().map(toToolCall);
}

/**
 * The query of `openToolCalls`, exported for the test of its plan. `CROSS JOIN` holds SQLite to
 * this order (the newest messages, their blocks, then each call by key); left to choose, it scans
 * the calls.
 */
export const OPEN_TOOL_CALLS = `SELECT tool_calls.*
  FROM messages CROSS JOIN json_each(messages.content) AS block CROSS JOIN tool_calls
  WHERE messages.seq > coalesce((SELECT seq FROM messages WHERE kind = 'tool_result' ORDER BY seq DESC LIMIT 1), 0)
    AND messages.role = 'assistant'
    AND json_extract(block.value, '$.type') = 'tool_use'
    AND tool_calls.id = json_extract(block.value, '$.id')
    AND tool_calls.message_seq = messages.seq
  ORDER BY tool_calls.message_seq, tool_calls.position`;

export function setToolCallStatus(sql: SqlStorage, id: string, status: ToolCallStatus, now: string): void {
  const started = status === "running" ? now : null;
  sql.exec("UPDATE tool_calls SET status = ?, started_at = COALESCE(?, started_at) WHERE id = ?", status, started, id);
}

export function setToolCallOutput(sql: SqlStorage, id: string, status: ToolCallStatus, output: string): void {
  sql.exec("UPDATE tool_calls SET status = ?, output = ?, is_error = 0 WHERE id = ?", status, output, id);
}

/** A call's result; `startedAt` is when this run of it started, kept only where no mark set one (an instant tool's). */
export function finishToolCall(
  sql: SqlStorage,
  id: string,
  output: string,
  isError: boolean,
  now: string,
  startedAt: string | null = null,
): void {
  sql.exec(
    "UPDATE tool_calls SET status = ?, output = ?, is_error = ?, started_at = COALESCE(started_at, ?), finished_at = ? WHERE id = ?",
    isError ? "error" : "done",
    output,
    isError ? 1 : 0,
    startedAt,
    now,
    id,
  );
}

export function recordDecision(sql: SqlStorage, id: string, decidedBy: string | null, decision: ToolCallDecision, now: string): void {
  sql.exec("UPDATE tool_calls SET decided_by = ?, decided_at = ?, decision = ? WHERE id = ?", decidedBy, now, decision, id);
}

export function countRestart(sql: SqlStorage, id: string): number {
  return Number(sql.exec("UPDATE tool_calls SET restarts = restarts + 1 WHERE id = ? RETURNING restarts", id).one().restarts);
}

function toToolCall(row: Record<string, SqlStorageValue>): ToolCall {
  return {
    id: String(row.id),
    step: Number(row.step),
    name: String(row.name),
    input: JSON.parse(String(row.input)),
    status: row.status as ToolCallStatus,
    output: row.output === null ? null : String(row.output),
    is_error: row.is_error === 1,
    created_at: String(row.created_at),
    started_at: row.started_at === null ? null : String(row.started_at),
    finished_at: row.finished_at === null ? null : String(row.finished_at),
    decided_by: row.decided_by == null ? null : String(row.decided_by),
    decided_at: row.decided_at == null ? null : String(row.decided_at),
    decision: row.decision == null ? null : (String(row.decision) as ToolCallDecision),
    policy: row.policy == null ? null : (JSON.parse(String(row.policy)) as ToolCallPolicy),
  };
}
