/**
 * Turns a session's event frames into the AI SDK's UI message stream (`ai` v7, protocol `v1`):
 * one chat turn, from the run going to the first status that hands the turn back (an answer, a
 * call waiting for a person or for the client, a failure). Pure: no I/O, no clock. Streamed
 * deltas and the stored assistant message are merged, so a live turn and its replay from the
 * event log (where deltas are not kept) end in the same UI message. The chat's history
 * (`ui-history.ts`) is built by this same class, so a reloaded page sees what the stream showed.
 */
import type { DeltaData, DeltaResetData, EventFrame, StatusData, ToolCallEventData } from "../sessions/object/events/frames";
import { isInputMessage } from "../sessions/input-message";
import type { ContentBlock, Message, SessionStatus, StopReason } from "../session-config/types";
import type { UiChunk } from "./ui-chunk";
import { sourceChunks } from "./ui-sources";

/** One part of the UI message stream, as `uiMessageChunkSchema` of the `ai` package reads it. */
export type { UiChunk } from "./ui-chunk";

/** Statuses that give the turn back to the person or the client: the stream finishes there. */
export const TURN_ENDING_STATUSES: readonly SessionStatus[] = [
  "idle",
  "waiting_approval",
  "waiting_tool_output",
  "waiting_budget",
  "paused",
  "done",
  "failed",
  "cancelled",
];

/**
 * The UI message ids of a chat, from the `seq` of the input that opened each turn: the answer's
 * id is sent in the live stream's `start` and given again by the history, so a page that reloads
 * holds the ids it streamed. The page's own user message ids are never stored: the history names
 * those by `seq` too.
 */
export function inputMessageId(seq: number): string {
  return `user-${seq}`;
}

export function answerMessageId(inputSeq: number): string {
  return `answer-${inputSeq}`;
}

/** The `finish` reason the AI SDK knows for a stop reason of a finished run. */
export function finishReason(status: SessionStatus, stopReason: StopReason | null): string {
  if (status === "waiting_approval" || status === "waiting_tool_output") return "tool-calls";
  if (status === "failed") return "error";
  switch (stopReason) {
    case "end_turn":
      return "stop";
    case "max_tokens":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}

interface OpenPart {
  id: string;
  /** Characters of the block already streamed. */
  sent: number;
  text: string;
}

export class ChatTurn {
  readonly #clientTools: ReadonlySet<string>;
  #step = 0;
  #inStep = false;
  #text = new Map<number, OpenPart>();
  #reasoning = new Map<number, OpenPart>();
  #ended = false;
  /** Failed calls of this step so far: a retry's parts get ids of their own. */
  #resets = 0;
  /** Whether `start` went out; until then it waits for the turn's input to name the answer. */
  #started = false;
  #messageId: string | null = null;
  /** The sources already shown in this turn (a paused turn's parts cite the same pages). */
  #sources = new Set<string>();

  /** `clientTools`: names of the session's `client` tools, which the page runs (`addToolOutput`); the platform runs the rest. */
  constructor(clientTools: ReadonlySet<string>) {
    this.#clientTools = clientTools;
  }

  /** Whether the turn has finished: nothing more is to be sent but `[DONE]`. */
  get ended(): boolean {
    return this.#ended;
  }

  /**
   * `start` at once, before any frame (a turn that answers calls: the page keeps its message's id).
   * Without it, `start` goes out before the first part, named by the turn's input when one came.
   */
  start(): UiChunk[] {
    return this.#open([]);
  }

  frame(frame: EventFrame): UiChunk[] {
    if (this.#ended) return [];
    if (frame.type === "message" && !this.#started && isInputMessage(frame.data as Message))
      this.#messageId = answerMessageId((frame.data as Message).seq);
    const out = this.#frame(frame);
    return out.length === 0 ? out : this.#open(out);
  }

  /**
   * The parts a call shows as it stands, for a turn rebuilt from storage: the approval asked and
   * answered (which the page itself added live), then its result once it has one.
   */
  call(call: ToolCallEventData): UiChunk[] {
    const out: UiChunk[] = [];
    if (call.decision !== null || call.status === "waiting_approval") out.push(approvalRequest(call));
    if (call.decision !== null) out.push(approvalResponse(call));
    if (call.status === "done" || call.status === "error") out.push(...outcome(call));
    return this.#open(out);
  }

  #open(out: UiChunk[]): UiChunk[] {
    if (this.#started) return out;
    this.#started = true;
    return [{ type: "start", ...(this.#messageId === null ? {} : { messageId: this.#messageId }) }, ...out];
  }

  #frame(frame: EventFrame): UiChunk[] {
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
        return this.#toolCall(frame.data as ToolCallEventData);
      case "tool_result":
        return this.#toolResult(frame.data as ToolCallEventData);
      case "status":
      case "end":
        return this.#status(frame.data as StatusData);
      case "credential_required":
        // A data part the page may show (connect this credential); the model never sees it.
        return this.#open([{ type: "data-credential-required", data: frame.data }]);
      default:
        return [];
    }
  }

  /** Ends the turn early (an error of the gateway, not of the run). */
  fail(errorText: string): UiChunk[] {
    if (this.#ended) return [];
    this.#ended = true;
    return this.#open([...this.#closeStep(), { type: "error", errorText }, { type: "finish", finishReason: "error" }]);
  }

  #openStep(): UiChunk[] {
    if (this.#inStep) return [];
    this.#inStep = true;
    this.#step += 1;
    return [{ type: "start-step" }];
  }

  #closeStep(): UiChunk[] {
    if (!this.#inStep) return [];
    const out: UiChunk[] = [];
    for (const part of this.#text.values()) out.push({ type: "text-end", id: part.id });
    for (const part of this.#reasoning.values()) out.push({ type: "reasoning-end", id: part.id });
    this.#text.clear();
    this.#reasoning.clear();
    this.#resets = 0;
    this.#inStep = false;
    out.push({ type: "finish-step" });
    return out;
  }

  #delta(delta: DeltaData): UiChunk[] {
    const out = this.#openStep();
    const reasoning = delta.kind === "reasoning";
    const parts = reasoning ? this.#reasoning : this.#text;
    const kind = reasoning ? "reasoning" : "text";
    let part = parts.get(delta.index);
    if (!part) {
      part = { id: this.#partId(kind, delta.index), sent: 0, text: "" };
      parts.set(delta.index, part);
      out.push({ type: `${kind}-start`, id: part.id });
    }
    // A retried call writes its block anew from 0: what was already shown stays, only new text is added.
    const fresh = delta.offset + delta.text.length - part.sent;
    if (delta.offset <= part.sent && fresh > 0) {
      const text = delta.text.slice(delta.text.length - fresh);
      part.sent += text.length;
      part.text += text;
      out.push({ type: `${kind}-delta`, id: part.id, delta: text });
    }
    return out;
  }

  #partId(kind: "text" | "reasoning", index: number): string {
    return `${kind}-${this.#step}-${index}${this.#resets ? `-retry${this.#resets}` : ""}`;
  }

  /**
   * A failed call's draft: the stream has no chunk that takes a part back, so its parts end here
   * and a transient `data-delta-reset` (to the page's `onData`) names them; the retry writes parts
   * with new ids. `useChat` shows the draft above the retry's answer until the chat is reloaded
   * (the history holds only the saved answer).
   */
  #reset(reset: DeltaResetData): UiChunk[] {
    const out: UiChunk[] = [];
    const ids: string[] = [];
    for (const [parts, kind] of [
      [this.#text, "text"],
      [this.#reasoning, "reasoning"],
    ] as const) {
      for (const index of reset.indices) {
        const part = parts.get(index);
        if (!part) continue;
        out.push({ type: `${kind}-end`, id: part.id });
        ids.push(part.id);
        parts.delete(index);
      }
    }
    if (ids.length === 0) return out;
    this.#resets += 1;
    out.push({ type: "data-delta-reset", data: { ids }, transient: true });
    return out;
  }

  /** The stored answer of a model step: the rest of its text, and its tool calls. */
  #assistant(content: ContentBlock[]): UiChunk[] {
    const out = this.#openStep();
    content.forEach((block, index) => {
      if (block.type === "text") out.push(...this.#finishBlock(this.#text, "text", index, block.text));
      else if (block.type === "thinking") out.push(...this.#finishBlock(this.#reasoning, "reasoning", index, block.thinking));
      else if (block.type === "tool_use") {
        const common = {
          toolCallId: block.id,
          toolName: block.name,
          dynamic: true,
          ...(this.#clientTools.has(block.name) ? {} : { providerExecuted: true }),
        };
        out.push({ type: "tool-input-start", ...common }, { type: "tool-input-available", ...common, input: block.input });
      }
    });
    // The pages and documents the answer cites, after its text, as the AI SDK shows an answer's sources.
    out.push(...sourceChunks(content, this.#sources));
    out.push(...this.#closeStep());
    return out;
  }

  #finishBlock(parts: Map<number, OpenPart>, kind: "text" | "reasoning", index: number, text: string): UiChunk[] {
    const out: UiChunk[] = [];
    let part = parts.get(index);
    if (!part) {
      if (text === "") return out;
      part = { id: this.#partId(kind, index), sent: 0, text: "" };
      out.push({ type: `${kind}-start`, id: part.id });
    }
    if (text.startsWith(part.text) && text.length > part.text.length)
      out.push({ type: `${kind}-delta`, id: part.id, delta: text.slice(part.text.length) });
    out.push({ type: `${kind}-end`, id: part.id });
    parts.delete(index);
    return out;
  }

  /** A call asks for approval; once approved and still going, the answer shows (the page added it live, a replay has not). */
  #toolCall(call: ToolCallEventData): UiChunk[] {
    if (call.status === "waiting_approval") return [approvalRequest(call)];
    if (call.decision === "approved" && call.status !== "done" && call.status !== "error") return [approvalResponse(call)];
    return [];
  }

  #toolResult(call: ToolCallEventData): UiChunk[] {
    return outcome(call);
  }

  #status(status: StatusData): UiChunk[] {
    if (!TURN_ENDING_STATUSES.includes(status.status)) return [];
    this.#ended = true;
    const out = this.#closeStep();
    if (status.status === "cancelled") return [...out, { type: "abort", reason: "cancelled" }];
    if (status.status === "failed") out.push({ type: "error", errorText: status.error ?? "The run failed." });
    out.push({ type: "finish", finishReason: finishReason(status.status, status.stop_reason) });
    return out;
  }
}

/** The approval's id is the call's own, so the response in the next request names the call. */
function approvalRequest(call: ToolCallEventData): UiChunk {
  return { type: "tool-approval-request", approvalId: call.id, toolCallId: call.id };
}

/** The answer to a call's approval: a denied or expired one is not approved. */
function approvalResponse(call: ToolCallEventData): UiChunk {
  return { type: "tool-approval-response", approvalId: call.id, approved: call.decision === "approved" };
}

/** A finished call's result: denied (by a person or by its approval's expiry), failed, or its output. */
function outcome(call: ToolCallEventData): UiChunk[] {
  if (call.decision === "denied" || call.decision === "expired") return [{ type: "tool-output-denied", toolCallId: call.id }];
  if (call.status === "error" || call.is_error)
    return [{ type: "tool-output-error", toolCallId: call.id, errorText: call.output ?? "the tool failed", dynamic: true }];
  return [{ type: "tool-output-available", toolCallId: call.id, output: call.output, dynamic: true }];
}
