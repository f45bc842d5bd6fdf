/**
 * The `a2a_tasks` key: for each `a2a` tool call whose remote task waits for input, where that task
 * is (the endpoint, its task and context ids), how many messages the call has sent, and the
 * answer a caller posted, not yet sent. Removed when the call ends (one closed by a cancel while it
 * waited: with the next write of the key).
 */

export const A2A_TASKS_KEY = "a2a_tasks";

export interface RemoteTask {
  /** The JSON-RPC endpoint the card named when the task began: the task lives there. */
  endpoint: string;
  task_id: string;
  context_id: string;
  /** Messages sent so far on the task, so each new one gets a message id of its own. */
  turns: number;
  /** The caller's answer, set when it is posted and sent by the call's next run. */
  answer?: string;
}

type RemoteTasks = Record<string, RemoteTask>;

export function remoteTask(kv: SyncKvStorage, toolCallId: string): RemoteTask | null {
  const all = kv.get<RemoteTasks>(A2A_TASKS_KEY);
  return all && Object.hasOwn(all, toolCallId) ? all[toolCallId]! : null;
}

/** Writes the entry of `toolCallId`; entries of calls `open` no longer holds (closed by a cancel as they waited) go with it. */
export function putRemoteTask(kv: SyncKvStorage, toolCallId: string, task: RemoteTask, open: ReadonlySet<string>): void {
  const kept = Object.entries(kv.get<RemoteTasks>(A2A_TASKS_KEY) ?? {}).filter(([id]) => open.has(id) && id !== toolCallId);
  kv.put(A2A_TASKS_KEY, { ...Object.fromEntries(kept), [toolCallId]: task });
}

export function deleteRemoteTask(kv: SyncKvStorage, toolCallId: string): void {
  const all = kv.get<RemoteTasks>(A2A_TASKS_KEY);
  if (!all || !Object.hasOwn(all, toolCallId)) return;
  const { [toolCallId]: _gone, ...rest } = all;
  if (Object.keys(rest).length === 0) kv.delete(A2A_TASKS_KEY);
  else kv.put(A2A_TASKS_KEY, rest);
}
