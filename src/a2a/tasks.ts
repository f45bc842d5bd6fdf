/**
 * A2A tasks as the platform's runs: the task id scheme, the states a session's status maps to,
 * and the task, status and artifact values the SDK's codecs put on the wire. Pure.
 */
import { Role, TaskState } from "@a2a-js/sdk";
import type { Artifact, Message as A2aMessage, Part, Task, TaskStatus } from "@a2a-js/sdk";
import { MAX_CHAT_ID_CHARS } from "../chat/request";
import type { SessionStatus } from "../session-config/statuses";
import type { ContentBlock, Message, ToolCallStatus } from "../session-config/types";
import { citedSources, type Source } from "../chat/ui-sources";

/**
 * A task id names one run of a context: `<seq>.<context id>`, `seq` being the sequence number of
 * the input message that started the run. Both parts are stable (a run's input never changes its
 * seq, and the context id names the caller's session), and the session is found again from the
 * context id alone, through the chat's own derivation, so a task id holds no session id and no
 * other caller's id can reach it.
 */
export function taskIdOf(contextId: string, inputSeq: number): string {
  return `${inputSeq}.${contextId}`;
}

export interface TaskRef {
  contextId: string;
  inputSeq: number;
}

/** The context and run a task id names; null for an id this platform never gave out. */
export function parseTaskId(taskId: string): TaskRef | null {
  const match = /^([1-9][0-9]{0,15})\.(.+)$/s.exec(taskId);
  if (!match || match[2]!.length > MAX_CHAT_ID_CHARS) return null;
  return { inputSeq: Number(match[1]), contextId: match[2]! };
}

/** The A2A state of the run a session's status describes. */
export function taskState(status: SessionStatus): TaskState {
  switch (status) {
    case "waiting_approval":
    case "waiting_tool_output":
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case "idle":
    case "done":
      return TaskState.TASK_STATE_COMPLETED;
    case "failed":
      return TaskState.TASK_STATE_FAILED;
    case "cancelled":
      return TaskState.TASK_STATE_CANCELED;
    default:
      // queued, running, waiting for sub-agents, paused: the run is under way.
      return TaskState.TASK_STATE_WORKING;
  }
}

/** States after which a task changes no more, and those that hand it back to the caller. */
export function isFinalState(state: TaskState): boolean {
  return state === TaskState.TASK_STATE_COMPLETED || state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED;
}

export function endsStream(state: TaskState): boolean {
  return isFinalState(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED;
}

export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

export function dataPart(data: unknown): Part {
  return { content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/** A call the run waits on, as the `waiting_for` DataPart of an `input-required` status names it. */
export interface WaitingCall {
  id: string;
  name: string;
  input: unknown;
  status: ToolCallStatus;
}

export function waitingForPart(calls: readonly WaitingCall[]): Part {
  return dataPart({
    waiting_for: calls.map((call) => ({
      tool_call_id: call.id,
      name: call.name,
      input: call.input,
      kind: call.status === "waiting_approval" ? "approval" : "tool_output",
    })),
  });
}

export function agentMessage(contextId: string, taskId: string, messageId: string, parts: Part[]): A2aMessage {
  return { messageId, contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** What a run's status says: the waiting calls when input is required, the reason when it failed. */
export function taskStatus(
  ref: { contextId: string; taskId: string },
  state: TaskState,
  detail: { waiting: readonly WaitingCall[]; error: string | null },
  timestamp: string,
): TaskStatus {
  let message: A2aMessage | undefined;
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED)
    message = agentMessage(ref.contextId, ref.taskId, `${ref.taskId}:waiting:${detail.waiting.map((call) => call.id).join(",")}`, [
      textPart(describeWaiting(detail.waiting)),
      waitingForPart(detail.waiting),
    ]);
  else if (state === TaskState.TASK_STATE_FAILED)
    message = agentMessage(ref.contextId, ref.taskId, `${ref.taskId}:failed`, [textPart(detail.error ?? "The run failed.")]);
  return { state, message, timestamp };
}

function describeWaiting(calls: readonly WaitingCall[]): string {
  if (calls.length === 0) return "The run waits for input.";
  const what = calls.map((call) => `${call.status === "waiting_approval" ? "approval of" : "the output of"} ${call.name} (${call.id})`);
  return `The run waits for ${what.join(", ")}. Answer with a DataPart { tool_call_id, approved, reason? } or { tool_call_id, output }.`;
}

/**
 * The answer as a text artifact, and the structured output (when the run produced one) as a data
 * artifact. The pages and documents the run's answers cite go in the answer artifact's
 * `metadata.sources` (`{ kind: "url", url, title }` or `{ kind: "document", title }`), each once:
 * metadata, so a client that knows nothing of them still reads the answer as plain text.
 */
export function answerArtifacts(answer: string | null, output: unknown, cited: readonly ContentBlock[] = []): Artifact[] {
  const artifacts: Artifact[] = [];
  const sources: Source[] = citedSources(cited);
  if (answer !== null && answer !== "")
    artifacts.push({
      artifactId: "answer",
      name: "answer",
      description: "",
      parts: [textPart(answer)],
      metadata: sources.length > 0 ? { sources } : undefined,
      extensions: [],
    });
  if (output !== null && output !== undefined)
    artifacts.push({
      artifactId: "output",
      name: "output",
      description: "",
      parts: [dataPart(output)],
      metadata: undefined,
      extensions: [],
    });
  return artifacts;
}

/** An assistant message's answer text; null for one with none (a message of tool calls only). */
export function answerText(message: Pick<Message, "role" | "content">): string | null {
  if (message.role !== "assistant") return null;
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  return text === "" ? null : text;
}

/** The text blocks of an answer that cite a source, kept while a run is read so its artifact can list them. */
export function citingBlocks(message: Pick<Message, "role" | "content">): ContentBlock[] {
  if (message.role !== "assistant") return [];
  return message.content.filter((block) => block.type === "text" && (block.citations?.length ?? 0) > 0);
}

/** A person's input message as the user message of a task's history. */
export function inputHistory(contextId: string, taskId: string, message: Pick<Message, "seq" | "content">): A2aMessage {
  const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  return {
    messageId: `${taskId}:input`,
    contextId,
    taskId,
    role: Role.ROLE_USER,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function newTask(contextId: string, taskId: string, status: TaskStatus, artifacts: Artifact[], history: A2aMessage[]): Task {
  return { id: taskId, contextId, status, artifacts, history, metadata: undefined };
}
