/**
 * The `a2a_task:<tool_call_id>` keys: for each `a2a` tool call whose remote task is under way or
 * waits for input, where that task is (the endpoint, its task and context ids), how many messages
 * the call has sent, and the answer a caller posted, not yet sent. One key per call, so parallel
 * calls never share a value; removed when the call ends, by whichever path closes it.
 */

export const A2A_TASK_PREFIX = "a2a_task:";
/** A caller's answer is kept at most this long (a value holds 2 MiB at most; UTF-16 doubles). */
export const A2A_MAX_ANSWER_CHARS = 256 * 1024;

export interface RemoteTask {
  /** The JSON-RPC endpoint the card named when the task began: the task lives there. */
  endpoint: string;
  task_id: string;
  context_id: string;
  /** Messages sent so far on the task, so each new one gets a message id of its own. */
  turns: number;
  /** The caller's answer, set when it is posted and sent by the call's next run. */
  answer?: string;
  /** Set while the task is still working after its send: a restart asks after it, never sends again. */
  polling?: boolean;
}

const keyOf = (toolCallId: string) => `${A2A_TASK_PREFIX}${toolCallId}`;

export function remoteTask(kv: SyncKvStorage, toolCallId: string): RemoteTask | null {
  return kv.get<RemoteTask>(keyOf(toolCallId)) ?? null;
}

export function putRemoteTask(kv: SyncKvStorage, toolCallId: string, task: RemoteTask): void {
  kv.put(keyOf(toolCallId), task);
}

export function deleteRemoteTask(kv: SyncKvStorage, toolCallId: string): void {
  kv.delete(keyOf(toolCallId));
}
