/**
 * The event frames a watcher receives, and how each stored event is kept: small events inline,
 * a message or a tool call only as a reference to its row, so no content is stored twice. The
 * same projection builds a frame live and on replay, so both read exactly alike.
 */
import type { CredentialRequired } from "../../../egress/credentials";
import type { Message, SessionStatus, StopReason, ToolCall, ToolCallDecision, ToolCallStatus, Usage } from "../../../session-config/types";

/** Stored events have an id and are replayed; `snapshot`, `delta`, `delta_reset` and `end` are sent, never stored, and carry none. */
export type EventType =
  | "status"
  | "message"
  | "tool_call"
  | "tool_result"
  | "usage"
  | "subagent"
  | "credential_required"
  | "snapshot"
  | "delta"
  | "delta_reset"
  | "end";

/** A child session started by an `agent` tool call, as of one of its status changes. */
export interface SubagentData {
  tool_call_id: string;
  session_id: string;
  status: SessionStatus;
  stop_reason: StopReason | null;
}

export interface StatusData {
  status: SessionStatus;
  stop_reason: StopReason | null;
  error: string | null;
}

/**
 * A tool call as one event saw it: `status` is the call's status at that event; `output` and
 * `is_error` are set once the call is finished (they never change after that).
 */
export interface ToolCallEventData {
  id: string;
  name: string;
  step: number;
  input: unknown;
  status: ToolCallStatus;
  output: string | null;
  is_error: boolean;
  /** Who approved or denied the call and when (`system` for an expired approval); null while it waits or when it needed none. */
  decided_by: string | null;
  decided_at: string | null;
  decision: ToolCallDecision | null;
}

/**
 * Text the model is writing: `text` goes at character `offset` of block `index` of the answer
 * being written. `kind: "reasoning"` marks the model's reasoning (a thinking block), never answer text.
 */
export interface DeltaData {
  index: number;
  text: string;
  offset: number;
  kind?: "reasoning";
}

/**
 * The model call that was writing these blocks failed after some of their text went out: a
 * watcher drops what it holds of them (the call's draft). A retry writes its blocks anew, from
 * offset 0; the saved answer holds only what the retry wrote.
 */
export interface DeltaResetData {
  /** The blocks of the answer being written that had text streamed, by `index` as the deltas gave it. */
  indices: number[];
}

export interface EventFrame {
  /** Set on stored events only. */
  id?: number;
  type: EventType;
  data: unknown;
  created_at: string;
}

/**
 * What an event holds in its batch (store/events.ts): its data, or a reference to the row that
 * holds it, in the shortest form that reads back exactly; the batch holds about a hundred events
 * per ten steps, and stored bytes are billed. A message is its `seq`; a call is `[id, status]`;
 * usage is its counts in `USAGE_FIELDS` order (`reasoning_tokens` last, only when reported).
 * Events stored before that form (`{ seq }`, `{ id, status }`, the usage object) read the same.
 */
export type StoredData =
  | { type: "status"; data: StatusData }
  | { type: "usage"; data: StoredUsage | Usage }
  | { type: "subagent"; data: SubagentData }
  | { type: "credential_required"; data: CredentialRequired }
  | { type: "message"; data: number | { seq: number } }
  | { type: "tool_call" | "tool_result"; data: [id: string, status: ToolCallStatus] | { id: string; status: ToolCallStatus } };

const USAGE_FIELDS = ["steps", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] as const;
/** A count added to `Usage` must get its place above (or after `reasoning_tokens`) before this compiles. */
type UnplacedUsageField = Exclude<keyof Usage, (typeof USAGE_FIELDS)[number] | "reasoning_tokens" | ObjectFormUsageField>;
/** Counts of the provider's own tools: usage that has any is stored in its object form, which reads back as it is. */
type ObjectFormUsageField = "web_search_requests" | "web_fetch_requests";
const everyUsageFieldPlaced: [UnplacedUsageField] extends [never] ? true : UnplacedUsageField = true;
void everyUsageFieldPlaced;

type StoredUsage = number[];

/** The event as the emitter hands it over: the message or the call itself, which the frame shows. */
export type EmittedEvent =
  | { type: "status"; data: StatusData }
  | { type: "usage"; data: Usage }
  | { type: "subagent"; data: SubagentData }
  | { type: "credential_required"; data: CredentialRequired }
  | { type: "message"; data: Message }
  | { type: "tool_call"; data: ToolCall }
  | { type: "tool_result"; data: ToolCall };

/** The data an emitted event of type `T` carries (a lookup, so that two declarations of an `emit` are one type). */
export type EventData<T extends EmittedEvent["type"]> = { [E in EmittedEvent as E["type"]]: E["data"] }[T];

export function toStored(event: EmittedEvent): StoredData {
  switch (event.type) {
    case "status":
    case "subagent":
    case "credential_required":
      return event;
    case "usage": {
      if (event.data.web_search_requests !== undefined || event.data.web_fetch_requests !== undefined) return event;
      const counts = USAGE_FIELDS.map((field) => event.data[field]);
      if (event.data.reasoning_tokens !== undefined) counts.push(event.data.reasoning_tokens);
      return { type: "usage", data: counts };
    }
    case "message":
      return { type: "message", data: event.data.seq };
    case "tool_call":
    case "tool_result":
      return { type: event.type, data: [event.data.id, event.data.status] };
  }
}

function storedUsage(data: StoredUsage | Usage): Usage {
  if (!Array.isArray(data)) return data;
  const usage = Object.fromEntries(USAGE_FIELDS.map((field, i) => [field, data[i] ?? 0])) as unknown as Usage;
  if (data.length > USAGE_FIELDS.length) usage.reasoning_tokens = data[USAGE_FIELDS.length]!;
  return usage;
}

/** The frame data of an emitted event: the same projection `expand` applies on replay. */
export function frameData(event: EmittedEvent): unknown {
  if (event.type === "tool_call" || event.type === "tool_result") return toolCallEventData(event.data, event.data.status);
  return event.data;
}

/** Reads the rows a stored event refers to; null when the row is gone (never, while the session exists). */
export interface RowReader {
  message(seq: number): Message | undefined;
  toolCall(id: string): ToolCall | undefined;
}

/** The frame data of a stored event, read back for replay. */
export function expand(stored: StoredData, rows: RowReader): unknown {
  switch (stored.type) {
    case "status":
    case "subagent":
    case "credential_required":
      return stored.data;
    case "usage":
      return storedUsage(stored.data);
    case "message":
      return rows.message(typeof stored.data === "number" ? stored.data : stored.data.seq) ?? null;
    case "tool_call":
    case "tool_result": {
      const [id, status] = Array.isArray(stored.data) ? stored.data : [stored.data.id, stored.data.status];
      const call = rows.toolCall(id);
      return call ? toolCallEventData(call, status) : null;
    }
  }
}

const FINISHED: readonly ToolCallStatus[] = ["done", "error"];

/**
 * A call as of an event with `status`: its result only once finished, when it no longer
 * changes; its decision once it no longer waits for one.
 */
export function toolCallEventData(call: ToolCall, status: ToolCallStatus): ToolCallEventData {
  const finished = FINISHED.includes(status);
  const decided = status !== "waiting_approval";
  return {
    id: call.id,
    name: call.name,
    step: call.step,
    input: call.input,
    status,
    output: finished ? call.output : null,
    is_error: finished ? call.is_error : false,
    decided_by: decided ? call.decided_by : null,
    decided_at: decided ? call.decided_at : null,
    decision: decided ? call.decision : null,
  };
}

/** The text of a frame on a WebSocket, and in the `data:` line of Server-Sent Events. */
export function frameJson(frame: EventFrame): string {
  return JSON.stringify(frame);
}

/**
 * One Server-Sent Event. `id:` is the stored event's id; a snapshot carries the id it is current
 * as of (`sseId`), so a browser that reconnects after it resumes from there. JSON has no raw
 * line breaks, so `data:` is always one line.
 */
export function sseEvent(frame: EventFrame, sseId: number | undefined = frame.id): string {
  const id = sseId === undefined ? "" : `id: ${sseId}\n`;
  return `${id}event: ${frame.type}\ndata: ${frameJson(frame)}\n\n`;
}

/** A comment line: keeps proxies from closing an idle stream; clients ignore it. */
export const SSE_HEARTBEAT = ": heartbeat\n\n";
