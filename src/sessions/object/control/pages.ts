/** The session's pages as the API lists them: messages, tool calls and steps, oldest first. */
import { decodeIntPairCursor, encodeIntPairCursor } from "../../../shared/cursor";
import type { SessionStore, StepRecord } from "../store/store";
import type { SessionResult, Message, Page, Step, ToolCall } from "../../../session-config/types";

/** The most tool calls one `listToolCalls` answer carries; without a limit, a caller gets this many. */
export const MAX_TOOL_CALL_PAGE = 1_000;

/**
 * The most text one page of messages or tool calls holds when a caller bounds it (an export), on
 * top of its first item (a stored value is at most 2 MB): the object reads no row past it, and the
 * gateway holds one such page while it sends it.
 */
export const MAX_PAGE_CHARS_BOUND = 256 * 1024;

/** `maxChars`: the page ends before the item that would take its text past it (its first item always comes). */
export function messagePage(store: SessionStore, after: number, limit: number, maxChars?: number): SessionResult<Page<Message>> {
  const { messages: data, more } = store.messagePage(after, limit, pageChars(maxChars));
  const last = data[data.length - 1];
  return { ok: true, value: { data, next_cursor: more && last ? String(last.seq) : null } };
}

/** A caller's bound on a page's text, within 1 and `MAX_PAGE_CHARS_BOUND`; none given, none applied. */
function pageChars(maxChars: number | undefined): number {
  if (maxChars === undefined || !Number.isFinite(maxChars)) return Number.MAX_SAFE_INTEGER;
  return Math.max(1, Math.min(Math.floor(maxChars), MAX_PAGE_CHARS_BOUND));
}

/** `cursor` is the previous page's `next_cursor`. */
export function toolCallPage(store: SessionStore, cursor: string | null, limit: number, maxChars?: number): SessionResult<Page<ToolCall>> {
  const after = cursor === null ? null : decodeIntPairCursor("tool_calls", cursor);
  if (cursor !== null && after === null) return { ok: false, reason: "invalid", detail: "not a tool-call cursor" };
  const page = store.toolCallPage(after, Math.max(1, Math.min(limit, MAX_TOOL_CALL_PAGE)), pageChars(maxChars));
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
