/**
 * A task read back from its session: the run's messages (from its input to the next one), the
 * calls it waits on, and its state as the session's status gives it.
 */
import { TaskState, type Task } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { isInputMessage } from "../chat/ui-chunks";
import type { SessionClient } from "../sessions/client";
import { waitingCalls } from "../sessions/waiting-calls";
import type { Message, Session } from "../session-config/types";
import { answerArtifacts, answerText, inputHistory, newTask, taskIdOf, taskState, taskStatus, type TaskRef } from "./tasks";

/** Messages read per call to the session object. */
const PAGE = 200;
/** A run's messages are read this many pages at most: the answer is the last text before the bound. */
const MAX_PAGES = 20;

export interface RunRead {
  input: Message;
  /** The run's last answer text; null while it has none. */
  answer: string | null;
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
        run = { input: message, answer: null, superseded: false };
        continue;
      }
      if (isInputMessage(message)) return { ...run, superseded: true };
      run.answer = answerText(message) ?? run.answer;
    }
    if (page.next_cursor === null || page.data.length === 0) break;
    after = page.data[page.data.length - 1]!.seq;
  }
  return run;
}

/** The task as it stands; an earlier run of the context is completed (the session keeps no status per run). */
export async function readTask(client: SessionClient, session: Session, ref: TaskRef): Promise<Task> {
  const taskId = taskIdOf(ref.contextId, ref.inputSeq);
  const run = await readRun(client, ref.inputSeq);
  if (run === null) throw new TaskNotFoundError({ message: `Task not found: ${taskId}` });
  const state = run.superseded ? TaskState.TASK_STATE_COMPLETED : taskState(session.status);
  const waiting = state === TaskState.TASK_STATE_INPUT_REQUIRED ? await waitingCalls(client) : [];
  const artifacts = state === TaskState.TASK_STATE_COMPLETED ? answerArtifacts(run.answer, run.superseded ? null : session.output) : [];
  const status = taskStatus(
    { contextId: ref.contextId, taskId },
    state,
    { waiting, error: session.error },
    run.superseded ? run.input.created_at : session.updated_at,
  );
  return newTask(ref.contextId, taskId, status, artifacts, [inputHistory(ref.contextId, taskId, run.input)]);
}
