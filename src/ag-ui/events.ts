/**
 * Turns a session's event frames into AG-UI events (`@ag-ui/core` 1.0): one AG-UI run, from the
 * session's run going to the first status that hands it back. Pure: no I/O, no clock. Streamed
 * deltas and the stored assistant message are merged as `ChatTurn` merges them (src/chat/ui-chunks.ts).
 * A call waiting for approval ends the run with an `interrupt` outcome, one interrupt per call
 * (its id the call's); a client tool waiting for its output ends it as a success naming the call in
 * `pendingToolCallIds`, as the protocol has a frontend tool end a run.
 */
import { type BaseEvent, EventType, type Interrupt } from "@ag-ui/core";
import { TURN_ENDING_STATUSES } from "../chat/ui-chunks";
import { citedSources } from "../chat/ui-sources";
import type { DeltaData, DeltaResetData, EventFrame, StatusData, ToolCallEventData } from "../sessions/object/events/frames";
import type { ContentBlock, Message } from "../session-config/types";

export type AgUiEvent = BaseEvent;

/** The interrupt's reason for a call that waits for approval. */
export const APPROVAL_REASON = "tool_approval";

/** What the next run's `resume` entry for an approval carries: `{ approved, reason? }`. */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: "object",
  properties: { approved: { type: "boolean" }, reason: { type: "string" } },
  required: ["approved"],
} as const;

export function approvalInterrupt(call: Pick<ToolCallEventData, "id" | "name" | "input">): Interrupt {
  return {
    id: call.id,
    reason: APPROVAL_REASON,
    message: `Approve the call of ${call.name}?`,
    toolCallId: call.id,
    responseSchema: APPROVAL_RESPONSE_SCHEMA,
    metadata: { tool_name: call.name, input: call.input },
  };
}

interface OpenMessage {
  id: string;
  text: string;
}

export class AgUiRun {
  readonly threadId: string;
  readonly runId: string;
  readonly #clientTools: ReadonlySet<string>;
  #started = false;
  #ended = false;
  #step = 0;
  /** Failed calls of this step so far: a retry's messages get ids of their own. */
  #resets = 0;
  #text = new Map<number, OpenMessage>();
  #reasoning = new Map<number, OpenMessage>();
  /** Calls waiting for approval, and client tool calls waiting for their output, in the order they began to. */
  #waiting = new Map<string, ToolCallEventData>();
  #pending = new Set<string>();
  #names = new Map<string, string>();

  /** `clientTools`: the names of the session's `client` tools, which the caller runs. */
  constructor(threadId: string, runId: string, clientTools: ReadonlySet<string>) {
    this.threadId = threadId;
    this.runId = runId;
    this.#clientTools = clientTools;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** `RUN_STARTED`, once, before anything else. */
  start(): AgUiEvent[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: EventType.RUN_STARTED, threadId: this.threadId, runId: this.runId }];
  }

  /** Calls already waiting when the run began (a run that answered only some of them). */
  waitingAlready(calls: readonly ToolCallEventData[]): void {
    for (const call of calls) this.#toolCall(call);
  }

  frame(frame: EventFrame): AgUiEvent[] {
    if (this.#ended) return [];
    return [...this.start(), ...this.#frame(frame)];
  }

  /** Ends the run with `RUN_ERROR` (a failure of the gateway or an answer refused, not of the session's run). */
  fail(message: string, code: string): AgUiEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    return [...this.start(), ...this.#closeOpen(), { type: EventType.RUN_ERROR, message, code }];
  }

  /** Ends the run as `status` hands it back (the session already in it when the run began). */
  end(status: StatusData): AgUiEvent[] {
    return [...this.start(), ...this.#status(status)];
  }

  #frame(frame: EventFrame): AgUiEvent[] {
    switch (frame.type) {
      case "delta":
        return this.#delta(frame.data as DeltaData);
      case "delta_reset":
        return this.#reset(frame.data as DeltaResetData);
      case "message": {
        const message = frame.data as Message;
        return message.role === "assistant" ? this.#assistant(message.content) : [];
      }
      case "tool_call":
        this.#toolCall(frame.data as ToolCallEventData);
        return [];
      case "tool_result":
        return this.#toolResult(frame.data as ToolCallEventData);
      case "status":
      case "end":
        return this.#status(frame.data as StatusData);
      case "credential_required":
        // The page may show it (connect this credential); the model never sees it.
        return [{ type: EventType.CUSTOM, name: "credential_required", value: frame.data }];
      default:
        return [];
    }
  }

  #id(kind: "text" | "reasoning", index: number): string {
    return `${this.runId}-${kind}-${this.#step}-${index}${this.#resets ? `-retry${this.#resets}` : ""}`;
  }

  /**
   * A failed call's draft: AG-UI cannot take a message back, so its messages end here and a
   * `CUSTOM` `delta_reset` event names them (a client drops them); the retry writes messages with
   * new ids.
   */
  #reset(reset: DeltaResetData): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    const messageIds: string[] = [];
    for (const reasoning of [false, true]) {
      const open = reasoning ? this.#reasoning : this.#text;
      for (const index of reset.indices) {
        const message = open.get(index);
        if (!message) continue;
        out.push(...closing(reasoning, message.id));
        messageIds.push(message.id);
        open.delete(index);
      }
    }
    if (messageIds.length === 0) return out;
    this.#resets += 1;
    out.push({ type: EventType.CUSTOM, name: "delta_reset", value: { messageIds } });
    return out;
  }

  #delta(delta: DeltaData): AgUiEvent[] {
    const reasoning = delta.kind === "reasoning";
    const open = reasoning ? this.#reasoning : this.#text;
    const out: AgUiEvent[] = [];
    let message = open.get(delta.index);
    if (!message) {
      message = { id: this.#id(reasoning ? "reasoning" : "text", delta.index), text: "" };
      open.set(delta.index, message);
      out.push(...opening(reasoning, message.id));
    }
    // A retried call writes its block anew from 0: what was already shown stays, only new text is added.
    const fresh = delta.offset + delta.text.length - message.text.length;
    if (delta.offset <= message.text.length && fresh > 0) {
      const text = delta.text.slice(delta.text.length - fresh);
      message.text += text;
      out.push(content(reasoning, message.id, text));
    }
    return out;
  }

  /** The stored answer of a model step: the rest of its text and reasoning, then its tool calls. */
  #assistant(blocks: ContentBlock[]): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    let parent: string | undefined;
    blocks.forEach((block, index) => {
      if (block.type === "text") parent = this.#finish(out, false, index, block.text) ?? parent;
      else if (block.type === "thinking") this.#finish(out, true, index, block.thinking);
    });
    out.push(...this.#closeOpen());
    // AG-UI has no source event: the pages the answer cites follow its text as a CUSTOM `sources` event.
    const sources = citedSources(blocks);
    if (sources.length > 0) out.push({ type: EventType.CUSTOM, name: "sources", value: { messageId: parent ?? null, sources } });
    for (const block of blocks) {
      if (block.type !== "tool_use") continue;
      this.#names.set(block.id, block.name);
      out.push(
        { type: EventType.TOOL_CALL_START, toolCallId: block.id, toolCallName: block.name, ...(parent ? { parentMessageId: parent } : {}) },
        { type: EventType.TOOL_CALL_ARGS, toolCallId: block.id, delta: JSON.stringify(block.input ?? {}) },
        { type: EventType.TOOL_CALL_END, toolCallId: block.id },
      );
    }
    this.#step += 1;
    this.#resets = 0;
    return out;
  }

  /** Completes block `index` with its stored `text`; the message id, or undefined for an empty block never opened. */
  #finish(out: AgUiEvent[], reasoning: boolean, index: number, text: string): string | undefined {
    const open = reasoning ? this.#reasoning : this.#text;
    let message = open.get(index);
    if (!message) {
      if (text === "") return undefined;
      message = { id: this.#id(reasoning ? "reasoning" : "text", index), text: "" };
      out.push(...opening(reasoning, message.id));
    }
    if (text.startsWith(message.text) && text.length > message.text.length)
      out.push(content(reasoning, message.id, text.slice(message.text.length)));
    out.push(...closing(reasoning, message.id));
    open.delete(index);
    return message.id;
  }

  #closeOpen(): AgUiEvent[] {
    const out: AgUiEvent[] = [];
    for (const message of this.#text.values()) out.push(...closing(false, message.id));
    for (const message of this.#reasoning.values()) out.push(...closing(true, message.id));
    this.#text.clear();
    this.#reasoning.clear();
    return out;
  }

  #toolCall(call: ToolCallEventData): void {
    this.#names.set(call.id, call.name);
    if (call.status === "waiting_approval") this.#waiting.set(call.id, call);
    else this.#waiting.delete(call.id);
    if (call.status === "waiting_tool_output") this.#pending.add(call.id);
    else this.#pending.delete(call.id);
  }

  /** A finished call's result; a client tool's own output is not sent back (the caller holds its tool message). */
  #toolResult(call: ToolCallEventData): AgUiEvent[] {
    this.#waiting.delete(call.id);
    this.#pending.delete(call.id);
    const refused = call.decision === "denied" || call.decision === "expired";
    if (this.#clientTools.has(call.name) && !refused) return [];
    return [
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: `${call.id}-result`,
        toolCallId: call.id,
        role: "tool",
        content: call.output ?? (refused ? "The call was not approved." : ""),
      },
    ];
  }

  #status(status: StatusData): AgUiEvent[] {
    if (this.#ended || !TURN_ENDING_STATUSES.includes(status.status)) return [];
    this.#ended = true;
    const out = this.#closeOpen();
    const finished = { type: EventType.RUN_FINISHED, threadId: this.threadId, runId: this.runId };
    switch (status.status) {
      case "failed":
        return [...out, { type: EventType.RUN_ERROR, message: status.error ?? "The run failed.", code: status.stop_reason ?? "failed" }];
      case "cancelled":
        return [...out, { ...finished, outcome: { type: "cancelled" } }];
      case "waiting_approval":
        if (this.#waiting.size > 0)
          return [...out, { ...finished, outcome: { type: "interrupt", interrupts: [...this.#waiting.values()].map(approvalInterrupt) } }];
        break;
      case "waiting_tool_output":
        if (this.#pending.size > 0) return [...out, { ...finished, outcome: { type: "success", pendingToolCallIds: [...this.#pending] } }];
        break;
      default:
        break;
    }
    // idle, done, paused: the run is over; a paused session says so in the result.
    return [...out, { ...finished, outcome: { type: "success" }, ...(status.status === "paused" ? { result: { status: "paused" } } : {}) }];
  }
}

function opening(reasoning: boolean, messageId: string): AgUiEvent[] {
  if (!reasoning) return [{ type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" }];
  return [
    { type: EventType.REASONING_START, messageId },
    { type: EventType.REASONING_MESSAGE_START, messageId, role: "reasoning" },
  ];
}

function content(reasoning: boolean, messageId: string, delta: string): AgUiEvent {
  return { type: reasoning ? EventType.REASONING_MESSAGE_CONTENT : EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
}

function closing(reasoning: boolean, messageId: string): AgUiEvent[] {
  if (!reasoning) return [{ type: EventType.TEXT_MESSAGE_END, messageId }];
  return [
    { type: EventType.REASONING_MESSAGE_END, messageId },
    { type: EventType.REASONING_END, messageId },
  ];
}
