/**
 * The session's conversation in storage: messages, summaries, the queue of waiting messages, tool
 * calls, the run's MCP tools, images, forks and the run's output (one module per table beside).
 */
import type { IntPairCursor } from "../../../shared/cursor";
import type { MessageMeta } from "../context/window";
import type { DiscoveredTool } from "../tools/mcp/plan";
import { sessionTitle } from "../../../session-config/title";
import * as fork from "./fork";
import * as images from "./images";
import * as queue from "./message-queue";
import * as remoteTasks from "./remote-tasks";
import * as messages from "./messages";
import * as runOutput from "./run-output";
import * as runTools from "./run-tools";
import * as summaries from "./summaries";
import * as toolCalls from "./tool-calls";
import {
  type ContentBlock,
  type Message,
  type OutputSchema,
  type RunOptions,
  type Role,
  type ToolCall,
  type ToolCallDecision,
  type ToolCallStatus,
} from "../../../session-config/types";
import { StoreCore } from "./store-core";

export class ConversationStore extends StoreCore {
  // ---- messages (messages.ts) ------------------------------------------------------------

  /** Saves a message with its token estimate and kind, computed here once for every later fit. */
  appendMessage(role: Role, content: ContentBlock[], now: string): Message {
    this.openCalls = null;
    return messages.appendMessage(this.storage.sql, role, content, now);
  }

  messages(after = 0, limit = Number.MAX_SAFE_INTEGER): Message[] {
    return messages.messages(this.storage.sql, after, limit);
  }

  /** A page of messages after `after`, cut at `limit` and at `maxChars` of content (messages.ts). */
  messagePage(after: number, limit: number, maxChars: number): { messages: Message[]; more: boolean } {
    return messages.messagePage(this.storage.sql, after, limit, maxChars);
  }

  /** Messages from `fromSeq` on and the ones named in `alsoSeqs`, oldest first. */
  messagesForWindow(fromSeq: number | null, alsoSeqs: readonly number[]): Message[] {
    return messages.messagesForWindow(this.storage.sql, fromSeq, alsoSeqs);
  }

  /** Messages with `fromSeq <= seq <= toSeq`, oldest first. */
  messageRange(fromSeq: number, toSeq: number): Message[] {
    return messages.messageRange(this.storage.sql, fromSeq, toSeq);
  }

  /**
   * The stored estimates of the messages after `afterSeq`, newest first; `sentOnly`: without the
   * omitted ones, as a model call sees the history. Lazy: rows are read as the caller iterates,
   * so a fit that stops early never reads the older history.
   */
  metaNewestFirst(afterSeq = 0, { sentOnly = false }: { sentOnly?: boolean } = {}): Generator<MessageMeta> {
    return messages.metaNewestFirst(this.storage.sql, afterSeq, sentOnly);
  }

  /** Leaves the messages from `fromSeq` on out of every later model call (a refused exchange); they stay in the history. */
  omitFrom(fromSeq: number): void {
    this.openCalls = null;
    messages.omitFrom(this.storage.sql, fromSeq);
  }

  /** The first message a model call is sent: the session's task. */
  firstMessageMeta(): MessageMeta | null {
    return messages.firstMessageMeta(this.storage.sql);
  }

  /** The session's title: its first input, cut (null before any input, or for an input of images only). */
  title(): string | null {
    const first = messages.firstInput(this.storage.sql);
    return first ? sessionTitle(first.content) : null;
  }

  messageMeta(seq: number): MessageMeta | null {
    return messages.messageMeta(this.storage.sql, seq);
  }

  message(seq: number): Message | undefined {
    return messages.message(this.storage.sql, seq);
  }

  /** The newest `limit` messages, newest first. */
  latestMessages(limit: number): Message[] {
    return messages.latestMessages(this.storage.sql, limit);
  }

  hasMessagesBefore(seq: number): boolean {
    return messages.hasMessagesBefore(this.storage.sql, seq);
  }

  // ---- summaries (summaries.ts) ----------------------------------------------------------

  latestSummary(): summaries.StoredSummary | null {
    return this.tables.has("summaries") ? summaries.latestSummary(this.storage.sql) : null;
  }

  summaries(): summaries.StoredSummary[] {
    return this.tables.has("summaries") ? summaries.summaries(this.storage.sql) : [];
  }

  saveSummary(summary: Omit<summaries.StoredSummary, "id">): void {
    this.ensureTable("summaries");
    summaries.saveSummary(this.storage.sql, summary);
  }

  // ---- messages waiting for the next run (message-queue.ts) ------------------------------

  enqueueMessage(content: ContentBlock[], options: RunOptions, now: string): void {
    this.ensureTable("pending_messages");
    queue.enqueueMessage(this.storage.sql, content, options, now);
  }

  queuedMessages(): number {
    return this.tables.has("pending_messages") ? queue.queuedMessages(this.storage.sql) : 0;
  }

  /** Removes and returns the oldest waiting message, or null. */
  dequeueMessage(): queue.QueuedMessage | null {
    return this.tables.has("pending_messages") ? queue.dequeueMessage(this.storage.sql) : null;
  }

  clearQueue(): number {
    return this.tables.has("pending_messages") ? queue.clearQueue(this.storage.sql) : 0;
  }

  // ---- tool calls (tool-calls.ts) --------------------------------------------------------

  insertToolCall(call: toolCalls.NewToolCall): void {
    this.openCalls = null;
    toolCalls.insertToolCall(this.storage.sql, call);
  }

  toolCall(id: string): ToolCall | undefined {
    return toolCalls.toolCall(this.storage.sql, id);
  }

  /**
   * Up to `limit` calls in call order after the call at (`after.first` = message_seq,
   * `after.second` = position), and where the next page starts when more follow.
   */
  toolCallPage(after: IntPairCursor | null, limit: number, maxChars?: number): { calls: ToolCall[]; next: IntPairCursor | null } {
    return toolCalls.toolCallPage(this.storage.sql, after, limit, maxChars);
  }

  toolCalls(): ToolCall[] {
    return toolCalls.toolCalls(this.storage.sql);
  }

  /** The calls of the latest model response whose results the model has not seen yet. */
  openToolCalls(): ToolCall[] {
    if (this.openCalls === null) {
      const read = toolCalls.openToolCalls(this.storage.sql);
      this.openCalls = read;
      // Dropped before the continuation of any await, so the next stretch reads storage again.
      queueMicrotask(() => {
        if (this.openCalls === read) this.openCalls = null;
      });
    }
    return this.openCalls.map((call) => ({ ...call }));
  }

  setToolCallStatus(id: string, status: ToolCallStatus, now: string): void {
    this.openCalls = null;
    toolCalls.setToolCallStatus(this.storage.sql, id, status, now);
  }

  /** A call that waits with something for its caller to read (an `a2a` call's question). */
  setToolCallOutput(id: string, status: ToolCallStatus, output: string): void {
    this.openCalls = null;
    toolCalls.setToolCallOutput(this.storage.sql, id, status, output);
  }

  finishToolCall(id: string, output: string, isError: boolean, now: string, startedAt: string | null = null): void {
    this.openCalls = null;
    toolCalls.finishToolCall(this.storage.sql, id, output, isError, now, startedAt);
    // An `a2a` call's remote task ends with the call, whichever path closes it (result, cancel, restart);
    // looked up first, since a delete is a billed row write even when no key is there.
    if (remoteTasks.remoteTask(this.storage.kv, id) !== null) remoteTasks.deleteRemoteTask(this.storage.kv, id);
  }

  /** Records who decided a call that waited for approval, and how. */
  recordDecision(id: string, decidedBy: string | null, decision: ToolCallDecision, now: string): void {
    this.openCalls = null;
    toolCalls.recordDecision(this.storage.sql, id, decidedBy, decision, now);
  }

  /** Counts one more restart that cut the call off; returns the count. */
  countRestart(id: string): number {
    this.openCalls = null;
    return toolCalls.countRestart(this.storage.sql, id);
  }

  // ---- the run's MCP tools (run-tools.ts) ------------------------------------------------

  /** Whether the current run's MCP tools were discovered and saved. */
  runToolsDiscovered(): boolean {
    return runTools.runToolsDiscovered(this.kv);
  }

  runTools(): DiscoveredTool[] {
    return this.tables.has("run_tools") ? runTools.runTools(this.storage.sql) : [];
  }

  /** Saves the run's MCP tools (in one transaction with the caller's other writes). */
  saveRunTools(tools: readonly DiscoveredTool[], now: string): void {
    this.ensureTable("run_tools");
    runTools.saveRunTools(this.storage.sql, this.kv, tools, now);
  }

  /** A new run lists its servers' tools again. */
  clearRunTools(): void {
    runTools.clearRunTools(this.tables.has("run_tools") ? this.storage.sql : null, this.kv);
  }

  // ---- images (images.ts) ----------------------------------------------------------------

  /** Stores an image under its content id; the same bytes stored again write nothing. */
  putImage(image: images.StoredImage, data: Uint8Array, now: string): void {
    this.ensureTable("images");
    images.putImage(this.storage.sql, image, data, now);
  }

  /** An image's bytes, or null when no image has this id (or its chunks do not add up). */
  imageData(id: string): Uint8Array | null {
    return this.tables.has("images") ? images.imageData(this.storage.sql, id) : null;
  }

  // ---- forks (fork.ts) ---------------------------------------------------------------------

  forkRows(atSeq: number): fork.ForkRows {
    return fork.readForkRows(this.storage.sql, atSeq, this.tables.has("images"));
  }

  /** Into a session just created, in the caller's transaction. */
  writeForkRows(rows: fork.ForkRows, now: string): void {
    if (rows.images.length > 0) this.ensureTable("images");
    this.openCalls = null;
    fork.writeForkRows(this.storage.sql, rows, now);
  }

  // ---- the run's output (run-output.ts) --------------------------------------------------

  /** The current run's `output_schema`: null for a free answer, undefined before any run. */
  runOutputSchema(): OutputSchema | null | undefined {
    return runOutput.runOutputSchema(this.storage.kv);
  }

  /** A new run's schema; its output starts empty. */
  beginRunOutput(schema: OutputSchema | null): void {
    runOutput.beginRunOutput(this.storage.kv, schema);
  }

  runOutput(): unknown {
    return runOutput.runOutput(this.storage.kv);
  }

  setRunOutput(output: unknown): void {
    runOutput.setRunOutput(this.storage.kv, output);
  }
}
