/** The session's pages as the API lists them: messages, tool calls and steps, oldest first. */
import { decodeIntPairCursor, encodeIntPairCursor } from "../../../shared/cursor";
import type { SessionStore, StepRecord } from "../store/store";
import type { SessionResult, Message, Page, Step, ToolCall } from "../../../session-config/types";

/** The most tool calls one `listToolCalls` answer carries; without a limit, a caller gets this many. */
export const MAX_TOOL_CALL_PAGE = 1_000;

export function messagePage(store: SessionStore, after: number, limit: number): SessionResult<Page<Message>> {
  const rows = store.messages(after, limit + 1);
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { ok: true, value: { data, next_cursor: rows.length > limit && last ? String(last.seq) : null } };
}

/** `cursor` is the previous page's `next_cursor`. */
export function toolCallPage(store: SessionStore, cursor: string | null, limit: number): SessionResult<Page<ToolCall>> {
  const after = cursor === null ? null : decodeIntPairCursor("tool_calls", cursor);
  if (cursor !== null && after === null) return { ok: false, reason: "invalid", detail: "not a tool-call cursor" };
  const page = store.toolCallPage(after, Math.max(1, Math.min(limit, MAX_TOOL_CALL_PAGE)));
  return {
    ok: true,
    value: { data: page.calls, next_cursor: page.next ? encodeIntPairCursor("tool_calls", page.next.first, page.next.second) : null },
  };
}

export function stepPage(store: SessionStore, after: number, limit: number): SessionResult<Page<Step>> {
  const rows = store.steps(after, limit + 1);
  const data = rows.slice(0, limit).map(toStep);
  const last = data[data.length - 1];
  return { ok: true, value: { data, next_cursor: rows.length > limit && last ? String(last.seq) : null } };
}

function toStep(row: StepRecord): Step {
  return {
    seq: row.seq,
    kind: row.kind,
    started_at: new Date(row.started_at).toISOString(),
    ended_at: new Date(row.ended_at).toISOString(),
    queued_ms: row.queued_ms,
    duration_ms: row.ended_at - row.started_at,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    outcome: row.outcome,
  };
}
