/**
 * A task's updates, read from the session's event log (the stream every watcher of the session
 * reads): the task when its run's input is seen, a status update at each change of state (with
 * the waiting calls when input is required), the answer as artifacts, and the last status.
 */
import { TaskState, type StreamResponse } from "@a2a-js/sdk";
import { isInputMessage } from "../sessions/input-message";
import type { Principal } from "../auth/principal";
import type { Limits } from "../limits";
import type { SessionClient } from "../sessions/client";
import { followEvents } from "../sessions/follow";
import { waitingCalls, waitsForAnswer } from "../sessions/waiting-calls";
import type { StatusData, ToolCallEventData } from "../sessions/object/events/frames";
import type { ContentBlock, Message } from "../session-config/types";
import {
  answerArtifacts,
  answerText,
  citingBlocks,
  endsStream,
  inputHistory,
  newTask,
  taskIdOf,
  taskState,
  taskStatus,
  type WaitingCall,
} from "./tasks";

export interface UpdateSource {
  client: SessionClient;
  principal: Principal;
  limits: Limits;
  contextId: string;
  /** The last event id before the run's updates begin (0: the log's start). */
  cursor: number;
  /**
   * The run whose updates are wanted; null: the first run whose input comes after the cursor.
   * With a cursor past 0, that run is under way already (its calls were just answered).
   */
  inputSeq: number | null;
  /** The task's state as the caller last showed it, when it showed the task before these updates. */
  state?: TaskState;
  signal: AbortSignal;
}

/** The updates until the task ends or waits for input; the caller reads the structured output from the session. */
export async function* taskUpdates(source: UpdateSource, output: () => Promise<unknown>): AsyncGenerator<StreamResponse> {
  const { contextId } = source;
  let taskId = source.inputSeq !== null && source.cursor > 0 ? taskIdOf(contextId, source.inputSeq) : null;
  let state: TaskState | null = source.state ?? null;
  let answer: string | null = null;
  const citing: ContentBlock[] = [];
  const waiting = new Map<string, WaitingCall>();
  // Past the log's start, calls that began waiting before the cursor are not in what follows.
  if (source.cursor > 0) for (const call of await waitingCalls(source.client)) waiting.set(call.id, call);
  const events = followEvents(source.client, {
    principal: source.principal,
    limits: source.limits,
    cursor: source.cursor,
    signal: source.signal,
  });
  for await (const frame of events) {
    if (frame.type === "message") {
      const message = frame.data as Message;
      if (isInputMessage(message)) {
        if (taskId !== null) return; // the next run began: this task is over
        if (source.inputSeq !== null && message.seq !== source.inputSeq) continue;
        taskId = taskIdOf(contextId, message.seq);
        state = TaskState.TASK_STATE_WORKING;
        const status = taskStatus({ contextId, taskId }, state, { waiting: [], error: null }, frame.created_at);
        yield { payload: { $case: "task", value: newTask(contextId, taskId, status, [], [inputHistory(contextId, taskId, message)]) } };
      } else if (taskId !== null) {
        answer = answerText(message) ?? answer;
        citing.push(...citingBlocks(message));
      }
      continue;
    }
    if (taskId === null) continue;
    if (frame.type === "tool_call" || frame.type === "tool_result") {
      const call = frame.data as ToolCallEventData;
      if (waitsForAnswer(call.status)) waiting.set(call.id, call);
      else waiting.delete(call.id);
    } else if (frame.type === "status" || frame.type === "end") {
      const data = frame.data as StatusData;
      const next = taskState(data.status);
      if (next === state && next === TaskState.TASK_STATE_WORKING) continue;
      state = next;
      const ref = { contextId, taskId };
      if (next === TaskState.TASK_STATE_COMPLETED) {
        // Followed from the present (never replayed from the log's start), this end is the newest run's: the session's output is its.
        for (const artifact of answerArtifacts(answer, await output(), citing))
          yield { payload: { $case: "artifactUpdate", value: { ...ref, artifact, append: false, lastChunk: true, metadata: undefined } } };
      }
      const status = taskStatus(ref, next, { waiting: [...waiting.values()], error: data.error }, frame.created_at);
      yield { payload: { $case: "statusUpdate", value: { ...ref, status, metadata: undefined } } };
      if (endsStream(next)) return;
    }
  }
}
