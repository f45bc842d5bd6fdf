/**
 * The snapshot a watcher gets first when it has no cursor (or one the log cannot honour): the
 * session's state as of `last_event_id`, with its newest messages but never its whole history.
 */
import type { SessionStore } from "../store/store";
import type { Message, SessionStatus, StopReason, Usage } from "../../../session-config/types";
import { type ToolCallEventData, toolCallEventData } from "./frames";

/** Messages in a snapshot at most; older ones are read with `GET /v1/sessions/{id}/messages`. */
export const SNAPSHOT_MAX_MESSAGES = 20;
/** Their serialized size at most, so one huge message cannot make a frame too large to send. */
export const SNAPSHOT_MAX_MESSAGE_BYTES = 256 * 1024;

export interface SnapshotData {
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
  usage: Usage;
  /** The newest stored event the snapshot includes; resume with it as the cursor. */
  last_event_id: number;
  /** The watcher's cursor was older than the retention (or not this session's): start over from here. */
  reset: boolean;
  /** The newest messages, oldest first. */
  messages: Message[];
  /** Older messages exist: page them with `GET …/messages` up to `messages[0].seq`. */
  has_earlier_messages: boolean;
  /** Calls of the last model response that have no result yet (waiting for approval or output, or running). */
  open_tool_calls: ToolCallEventData[];
}

export function buildSnapshot(
  store: SessionStore,
  state: { status: SessionStatus; stop_reason: StopReason | null; error: string | null; usage: Usage },
  lastEventId: number,
  reset: boolean,
): SnapshotData {
  const newestFirst = store.latestMessages(SNAPSHOT_MAX_MESSAGES + 1);
  const messages: Message[] = [];
  let bytes = 0;
  for (const message of newestFirst.slice(0, SNAPSHOT_MAX_MESSAGES)) {
    bytes += JSON.stringify(message).length;
    if (bytes > SNAPSHOT_MAX_MESSAGE_BYTES) break;
    messages.unshift(message);
  }
  const first = messages[0];
  const hasEarlier = first ? store.hasMessagesBefore(first.seq) : newestFirst.length > 0;
  return {
    status: state.status,
    stop_reason: state.stop_reason,
    error: state.error,
    usage: state.usage,
    last_event_id: lastEventId,
    reset,
    messages,
    has_earlier_messages: hasEarlier,
    open_tool_calls: store.openToolCalls().map((call) => toolCallEventData(call, call.status)),
  };
}
