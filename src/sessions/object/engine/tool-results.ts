/**
 * Where the open tool calls of a response stand, and the tool_result message written once every
 * one of them has a result (one result per tool_use, in the order of the tool_use blocks).
 */
import type { ToolCall, ToolResultBlock } from "../../../session-config/types";
import type { EmittedEvent } from "../events/frames";
import type { SessionStore } from "../store/store";

/** What collecting the results needs of the engine: its store, a transaction, the clock and the event log. */
export interface ToolResultsHost {
  readonly store: Pick<SessionStore, "openToolCalls" | "appendMessage" | "callsWaitingOnChildren">;
  transaction<T>(fn: () => T): T;
  nowIso(): string;
  emit(type: "message", data: Extract<EmittedEvent, { type: "message" }>["data"]): void;
}

export type OpenCallsState = "none" | "runnable" | "complete" | "waiting_approval" | "waiting_tool_output" | "waiting_subagents";

/**
 * Pure: where the open tool calls of a response stand. `runnable` and `complete` both mean the
 * run can go on (a tool unit, or the next model call); the others wait for someone. A `running`
 * call in `children` (an agent call whose child session runs) waits for the child, not a unit.
 */
export function openCallsState(
  open: readonly Pick<ToolCall, "id" | "status">[],
  children: ReadonlySet<string> = new Set(),
): OpenCallsState {
  if (open.length === 0) return "none";
  if (open.some((c) => c.status === "pending" || (c.status === "running" && !children.has(c.id)))) return "runnable";
  if (open.some((c) => c.status === "waiting_approval")) return "waiting_approval";
  if (open.some((c) => c.status === "waiting_tool_output")) return "waiting_tool_output";
  if (open.some((c) => c.status === "running")) return "waiting_subagents";
  return "complete";
}

/** Looks at the open tool calls after any of them changed; when all have a result, writes the tool_result message. */
export function collectToolResults(engine: ToolResultsHost): OpenCallsState {
  const { store } = engine;
  const open = store.openToolCalls();
  const state = openCallsState(open, store.callsWaitingOnChildren());
  if (state !== "complete") return state;
  const results: ToolResultBlock[] = open.map((c) => ({
    type: "tool_result",
    tool_use_id: c.id,
    content: c.output ?? "",
    ...(c.is_error ? { is_error: true } : {}),
  }));
  engine.transaction(() => {
    // From now on these calls are closed: open calls are those after the newest tool_result message.
    const saved = store.appendMessage("user", results, engine.nowIso());
    engine.emit("message", saved);
  });
  return "complete";
}
