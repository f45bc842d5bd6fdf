/**
 * A task read back from its session: the run's messages (from its input to the next one), the
 * calls it waits on, and its state: the session's status, or for an earlier run the last status it had.
 */
import { TaskState, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { isInputMessage } from "../sessions/input-message";
import type { SessionClient } from "../sessions/client";
import { followEvents, latestEventId, type FollowOptions } from "../sessions/follow";
import type { StatusData } from "../sessions/object/events/frames";
import { waitingCalls } from "../sessions/waiting-calls";
import type { ContentBlock, Message, Session } from "../session-config/types";
import {
  answerArtifacts,
  answerText,
  citingBlocks,
  inputHistory,
  isFinalState,
  newTask,
  taskIdOf,
  taskState,
  taskStatus,
  type TaskRef,
} from "./tasks";

/** Messages read per call to the session object. */
const PAGE = 200;
/** A run's messages are read this many pages at most: the answer is the last text before the bound. */
const MAX_PAGES = 20;

export interface RunRead {
  input: Message;
  /** The run's last answer text; null while it has none. */
  answer: string | null;
  /** The run's answer blocks that cite a source (their sources go with the answer). */
  citing: ContentBlock[];
  /** Whether a later input started another run after this one. */
  superseded: boolean;
}

/** The run `inputSeq` started, or null when no input has that seq. */
export async function readRun(client: SessionClient, inputSeq: number): Promise<RunRead | null> {
  let after = inputSeq - 1;
  let run: RunRead | null = null;
  for (let pages = 0; pages < MAX_PAGES; pages += 1) {
    const page = await client.listMessages(after, PAGE);
    for (const message of page.data) {
      if (run === null) {
        if (message.seq !== inputSeq || !isInputMessage(message)) return null;
        run = { input: message, answer: null, citing: [], superseded: false };
        continue;
      }
      if (isInputMessage(message)) return { ...run, superseded: true };
      run.answer = answerText(message) ?? run.answer;
      run.citing.push(...citingBlocks(message));
    }
    if (page.next_cursor === null || page.data.length === 0) break;
    after = page.data[page.data.length - 1]!.seq;
  }
  return run;
}

/** A superseded run's state: its last status in the event log; completed when the log no longer holds its input (pruned). */
async function supersededState(
  client: SessionClient,
  follow: Omit<FollowOptions, "cursor">,
  inputSeq: number,
): Promise<{ state: TaskState; error: string | null }> {
  let last: StatusData | null = null;
  let inRun = false;
  const latest = await latestEventId(client, follow);
  const seen = (id: number) => id >= latest;
  for await (const frame of followEvents(client, { ...follow, cursor: 0 })) {
    if (frame.type === "message" && isInputMessage(frame.data as Message)) {
      if (inRun) break; // the next run's input: this run's statuses are all seen
      inRun = (frame.data as Message).seq === inputSeq;
    } else if (inRun && (frame.type === "status" || frame.type === "end")) {
      // The next input's own statuses (queued) come before its message: an ended run keeps its end.
      const data = frame.data as StatusData;
      if (last === null || !isFinalState(taskState(last.status)) || isFinalState(taskState(data.status))) last = data;
    }
    const id = frame.type === "snapshot" ? (frame.data as { last_event_id: number }).last_event_id : frame.id;
    if (typeof id === "number" && seen(id)) break;
  }
  if (last === null) return { state: TaskState.TASK_STATE_COMPLETED, error: null };
  const state = taskState(last.status);
  // A run left waiting, or cut while working, was ended by the next input: it is over, not failed.
  return { state: isFinalState(state) ? state : TaskState.TASK_STATE_COMPLETED, error: last.error };
}

/** The task as it stands; an earlier run of the context takes the last status its run had. */
export async function readTask(
  client: SessionClient,
  session: Session,
  ref: TaskRef,
  follow: Omit<FollowOptions, "cursor">,
): Promise<Task> {
  const taskId = taskIdOf(ref.contextId, ref.inputSeq);
  const run = await readRun(client, ref.inputSeq);
  if (run === null) throw new TaskNotFoundError({ message: `Task not found: ${taskId}` });
  const { state, error } = run.superseded
    ? await supersededState(client, follow, ref.inputSeq)
    : { state: taskState(session.status), error: session.error };
  const waiting = state === TaskState.TASK_STATE_INPUT_REQUIRED ? await waitingCalls(client) : [];
  const artifacts =
    state === TaskState.TASK_STATE_COMPLETED ? answerArtifacts(run.answer, run.superseded ? null : session.output, run.citing) : [];
  const status = taskStatus(
    { contextId: ref.contextId, taskId },
    state,
    { waiting, error },
    run.superseded ? run.input.created_at : session.updated_at,
  );
  return newTask(ref.contextId, taskId, status, artifacts, [inputHistory(ref.contextId, taskId, run.input)]);
}
