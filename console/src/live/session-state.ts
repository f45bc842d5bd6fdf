/**
 * A watched session as the console draws it, folded from the events stream's frames and from
 * the pages it reads (messages, tool calls). Frames arrive in order, but a page read while they
 * flow may be newer than a frame still on its way, so a tool call never moves back to an
 * earlier status. Pure.
 */
import type { EventFrame, Message, SessionStatus, ToolCall, ToolCallEventData, ToolCallStatus, Usage } from "../types";

/** A tool call from the stream, with what only the list gives (timings, decisions) once read. */
export type LiveToolCall = ToolCallEventData & Partial<Omit<ToolCall, keyof ToolCallEventData>>;

export interface LiveState {
  status: SessionStatus | null;
  stopReason: string | null;
  error: string | null;
  usage: Usage | null;
  /** Oldest first, one per `seq`. */
  messages: Message[];
  hasEarlierMessages: boolean;
  /** In the order the model asked for them. */
  toolCalls: LiveToolCall[];
  /** Text the model is writing now, per text block of the answer. */
  drafts: string[];
  /** The newest stored event seen: where a reconnect resumes (`?after=`). */
  lastEventId: number | null;
  /** The stream said `end`: the session reached a final status. */
  ended: boolean;
}

export const INITIAL_LIVE_STATE: LiveState = {
  status: null,
  stopReason: null,
  error: null,
  usage: null,
  messages: [],
  hasEarlierMessages: false,
  toolCalls: [],
  drafts: [],
  lastEventId: null,
  ended: false,
};

/** A call's statuses in the only order they can follow each other. */
const TOOL_CALL_RANK: Record<ToolCallStatus, number> = {
  pending: 0,
  waiting_approval: 1,
  waiting_tool_output: 2,
  running: 3,
  done: 4,
  error: 4,
};

export function applyFrame(state: LiveState, frame: EventFrame): LiveState {
  const id = "id" in frame ? frame.id : undefined;
  const next = id === undefined ? state : { ...state, lastEventId: Math.max(state.lastEventId ?? 0, id) };
  switch (frame.type) {
    case "snapshot": {
      const data = frame.data;
      const messages = data.reset ? data.messages : mergeMessages(state.messages, data.messages);
      return {
        ...state,
        status: data.status,
        stopReason: data.stop_reason,
        error: data.error,
        usage: data.usage,
        messages,
        hasEarlierMessages: data.has_earlier_messages || (data.reset && state.hasEarlierMessages),
        toolCalls: mergeToolCalls(state.toolCalls, data.open_tool_calls),
        drafts: [],
        lastEventId: data.last_event_id,
        ended: false,
      };
    }
    case "status":
      return { ...next, status: frame.data.status, stopReason: frame.data.stop_reason, error: frame.data.error };
    case "message":
      // The complete answer replaces what was being written.
      return { ...next, messages: mergeMessages(next.messages, [frame.data]), drafts: frame.data.role === "assistant" ? [] : next.drafts };
    case "tool_call":
    case "tool_result":
      return { ...next, toolCalls: mergeToolCalls(next.toolCalls, [frame.data]) };
    case "usage":
      return { ...next, usage: frame.data };
    case "delta": {
      const drafts = next.drafts.slice();
      const { index, text, offset } = frame.data;
      drafts[index] = (drafts[index] ?? "").slice(0, offset) + text;
      return { ...next, drafts };
    }
    case "delta_reset": {
      // The call writing these blocks failed: its draft goes; a retry writes them anew.
      const drafts = next.drafts.slice();
      for (const index of frame.data.indices) drafts[index] = "";
      return { ...next, drafts };
    }
    case "end":
      return { ...next, status: frame.data.status, stopReason: frame.data.stop_reason, error: frame.data.error, drafts: [], ended: true };
    default:
      // A kind of frame a newer platform sends: its id still counts for a reconnect.
      return next;
  }
}

/** Messages by `seq`, oldest first; a message read again replaces the one held. */
export function mergeMessages(held: readonly Message[], incoming: readonly Message[]): Message[] {
  const bySeq = new Map(held.map((message) => [message.seq, message]));
  for (const message of incoming) bySeq.set(message.seq, message);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}

/** Calls by id, in the order first seen (or by step); a call never goes back to an earlier status. */
export function mergeToolCalls(held: readonly LiveToolCall[], incoming: readonly LiveToolCall[]): LiveToolCall[] {
  const byId = new Map(held.map((call) => [call.id, call]));
  for (const call of incoming) {
    const current = byId.get(call.id);
    if (!current) {
      byId.set(call.id, call);
      continue;
    }
    const older = TOOL_CALL_RANK[call.status] < TOOL_CALL_RANK[current.status];
    // Fields only the list has (timings, decisions) are kept from whichever source had them.
    byId.set(call.id, older ? { ...call, ...current } : { ...current, ...call });
  }
  return [...byId.values()].sort((a, b) => a.step - b.step);
}

/** Which calls wait for a person: an approval, or a client tool's output. */
export function waitingCalls(calls: readonly LiveToolCall[]): LiveToolCall[] {
  return calls.filter((call) => call.status === "waiting_approval" || call.status === "waiting_tool_output");
}

/** Everything that changes a watched session's state: frames, and pages read beside the stream. */
export type LiveAction =
  | { kind: "frame"; frame: EventFrame }
  /** `GET …/tool-calls`: every call with its timings and decisions. */
  | { kind: "tool_calls"; calls: LiveToolCall[] }
  /** `GET …/messages` before the oldest one held. */
  | { kind: "earlier_messages"; messages: Message[] }
  /**
   * The stream was lost: deltas are never replayed, and an attempt that died with the old
   * connection (a restart mid-answer) sends no reset, so its drafts go now.
   */
  | { kind: "reconnecting" };

export function liveReducer(state: LiveState, action: LiveAction): LiveState {
  switch (action.kind) {
    case "frame":
      return applyFrame(state, action.frame);
    case "tool_calls":
      return { ...state, toolCalls: mergeToolCalls(state.toolCalls, action.calls) };
    case "earlier_messages": {
      const messages = mergeMessages(state.messages, action.messages);
      return { ...state, messages, hasEarlierMessages: (messages[0]?.seq ?? 1) > 1 };
    }
    case "reconnecting":
      return state.drafts.length ? { ...state, drafts: [] } : state;
  }
}

/** Pure: the page of messages just before `oldestSeq` (seq counts from 1 without gaps), at most `limit`. */
export function earlierPage(oldestSeq: number, limit: number): { after: number; limit: number } | null {
  if (oldestSeq <= 1) return null;
  const after = Math.max(0, oldestSeq - 1 - limit);
  return { after, limit: oldestSeq - 1 - after };
}
