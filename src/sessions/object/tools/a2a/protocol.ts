/**
 * The Agent2Agent wire as the `a2a` tool speaks it, pure: the JSON-RPC endpoint an agent card
 * names, the `message/send` and `tasks/get` requests, and what an answer means for the call.
 * Requests use the JSON-RPC binding's 0.3 shapes (`kind` on messages and parts), which 0.3
 * servers and `@a2a-js/sdk` 1.x's compatibility layer answer; answers are read in those shapes
 * or the 1.0 ones (parts without `kind`, `TASK_STATE_*` states).
 */

/** Remote task and context ids longer than this are refused (the call keeps them and sends them back). */
export const A2A_MAX_ID_CHARS = 256;

/** The states of a task, as 0.3 names them. */
type TaskState =
  "submitted" | "working" | "input-required" | "completed" | "canceled" | "failed" | "rejected" | "auth-required" | "unknown";

const FINAL_ERRORS: ReadonlySet<TaskState> = new Set(["canceled", "failed", "rejected", "auth-required"]);

/** What one answer means: the call's result, a task waiting for input, a task still going, or a broken answer. */
export type A2aAnswer =
  | { kind: "result"; output: string; isError: boolean }
  | { kind: "input_required"; question: string; taskId: string; contextId: string }
  | { kind: "pending"; taskId: string; contextId: string; state: string }
  | { kind: "invalid"; detail: string };

/** The JSON-RPC endpoint of a card: its `url` (0.3), else its first JSON-RPC interface (1.0). */
export function cardEndpoint(body: string): { ok: true; url: string } | { ok: false; detail: string } {
  const card = parseObject(body);
  if (!card) return { ok: false, detail: "the agent card is not a JSON object" };
  if (typeof card.url === "string" && card.url !== "") return { ok: true, url: card.url };
  const interfaces = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  for (const entry of interfaces) {
    if (isObject(entry) && typeof entry.url === "string" && String(entry.protocolBinding).toUpperCase() === "JSONRPC")
      return { ok: true, url: entry.url };
  }
  return { ok: false, detail: "the agent card names no JSON-RPC endpoint" };
}

/**
 * `message/send` of one part; on a task that asked for input, its task and context ids. An answer
 * that is a JSON object goes as a data part (an agent that asked for structured input, as the
 * platform's own agents do for a call's approval or output), any other text as a text part.
 */
export function sendRequest(rpcId: string, messageId: string, text: string, task: { taskId: string; contextId: string } | null): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: rpcId,
    method: "message/send",
    params: {
      message: {
        kind: "message",
        role: "user",
        messageId,
        parts: [task ? answerPart(text) : { kind: "text", text }],
        ...(task ? { taskId: task.taskId, contextId: task.contextId } : {}),
      },
      // Answered at once with the task, which the call then asks after: its id is kept before any wait.
      configuration: { blocking: false, acceptedOutputModes: ["text/plain", "application/json"] },
    },
  });
}

function answerPart(text: string): Record<string, unknown> {
  const data = parseObject(text);
  return data ? { kind: "data", data } : { kind: "text", text };
}

export function getTaskRequest(rpcId: string, taskId: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: rpcId, method: "tasks/get", params: { id: taskId, historyLength: 0 } });
}

export function cancelTaskRequest(rpcId: string, taskId: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: rpcId, method: "tasks/cancel", params: { id: taskId } });
}

/** Reads a JSON-RPC answer to `message/send` or `tasks/get`. */
export function readAnswer(body: string): A2aAnswer {
  const envelope = parseObject(body);
  if (!envelope) return { kind: "invalid", detail: "the answer is not a JSON-RPC response" };
  if (isObject(envelope.error)) {
    const { code, message } = envelope.error;
    return { kind: "result", output: `the remote agent answered error ${String(code)}: ${String(message ?? "")}`, isError: true };
  }
  const result = isObject(envelope.result) ? unwrapResult(envelope.result) : null;
  if (!result) return { kind: "invalid", detail: "the answer has neither a result nor an error" };
  if (result.kind === "message" || (!("status" in result) && Array.isArray(result.parts)))
    return { kind: "result", output: partsText(result.parts), isError: false };
  return readTask(result);
}

/** A 1.0 answer wraps its task or message (`{ task }`, `{ message }`); a 0.3 one is the object itself. */
function unwrapResult(result: Record<string, unknown>): Record<string, unknown> | null {
  if (isObject(result.task)) return result.task;
  if (isObject(result.message)) return { ...result.message, kind: "message" };
  return result;
}

function readTask(task: Record<string, unknown>): A2aAnswer {
  const status = isObject(task.status) ? task.status : {};
  const state = normalizeState(status.state);
  const said = isObject(status.message) ? partsText(status.message.parts) : "";
  if (typeof task.id !== "string" || state === null) return { kind: "invalid", detail: "the task has no id or no known state" };
  // The ids are kept with the call and sent back: a remote agent does not choose their size.
  if (task.id.length > A2A_MAX_ID_CHARS || (typeof task.contextId === "string" && task.contextId.length > A2A_MAX_ID_CHARS))
    return { kind: "invalid", detail: `the task's id or contextId is over ${A2A_MAX_ID_CHARS} characters` };
  if (state === "completed") {
    const artifacts = Array.isArray(task.artifacts) ? task.artifacts : [];
    const text = artifacts
      .map((artifact) => (isObject(artifact) ? partsText(artifact.parts) : ""))
      .filter((piece) => piece !== "")
      .join("\n");
    return { kind: "result", output: text !== "" ? text : said, isError: false };
  }
  if (state === "input-required") {
    if (typeof task.contextId !== "string") return { kind: "invalid", detail: "the task waiting for input has no contextId" };
    return { kind: "input_required", question: said, taskId: task.id, contextId: task.contextId };
  }
  if (FINAL_ERRORS.has(state)) return { kind: "result", output: `the remote task ended ${state}${said ? `: ${said}` : ""}`, isError: true };
  return { kind: "pending", taskId: task.id, contextId: typeof task.contextId === "string" ? task.contextId : "", state };
}

const STATES: readonly TaskState[] = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
  "unknown",
];

/** `input-required` and `TASK_STATE_INPUT_REQUIRED` alike; null for anything else. */
function normalizeState(raw: unknown): TaskState | null {
  if (typeof raw !== "string") return null;
  const name = raw
    .replace(/^TASK_STATE_/, "")
    .toLowerCase()
    .replaceAll("_", "-") as TaskState;
  if (name === ("cancelled" as TaskState)) return "canceled";
  return STATES.includes(name) ? name : null;
}

/** Text parts as they are, data parts as JSON text; files are named by their URL or name, never fetched. */
function partsText(parts: unknown): string {
  if (!Array.isArray(parts)) return "";
  return parts
    .map((part) => {
      if (!isObject(part)) return "";
      if (typeof part.text === "string") return part.text;
      if ("data" in part && part.data !== undefined) return JSON.stringify(part.data);
      const file = isObject(part.file) ? part.file : part;
      const where = file.uri ?? file.url ?? file.name ?? file.filename;
      return typeof where === "string" ? `[file: ${where}]` : "";
    })
    .filter((piece) => piece !== "")
    .join("\n");
}

function parseObject(body: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(body);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
