/**
 * The session object's storage, one facade over a module per table (SQL beside its logic); the layout is
 * in storage.md. Nothing is written until the session is created, so an id that was never
 * created leaves no trace.
 */
import { migrate } from "../../../storage/migrations";
import { OnDemandTables } from "../../../storage/on-demand-tables";
import type { IntPairCursor } from "../../../shared/cursor";
import type { MessageMeta } from "../context/window";
import { KvStretchCache } from "../engine/kv-stretch";
import type { DiscoveredTool } from "../tools/mcp/plan";
import { sessionTitle } from "../../../session-config/title";
import {
  type ContentBlock,
  EMPTY_USAGE,
  type Message,
  type OutputSchema,
  type RunOptions,
  type Role,
  type ToolCall,
  type ToolCallDecision,
  type ToolCallStatus,
  type Usage,
} from "../../../session-config/types";
import type { SpanRecord } from "../../../session-config/trace-types";
import * as events from "./events";
import * as fork from "./fork";
import * as images from "./images";
import * as queue from "./message-queue";
import * as messages from "./messages";
import { SESSION_MIGRATIONS } from "./migrations";
import { SESSION_BASELINE, SESSION_ON_DEMAND_TABLES, type SessionOnDemandTable } from "./schema";
import * as outbox from "./outbox";
import * as runOutput from "./run-output";
import * as runTools from "./run-tools";
import { type RunState, readRun, readSession, SESSION_KEY, type StoredSession, writeRun, writeSession } from "./state";
import * as steps from "./steps";
import * as summaries from "./summaries";
import * as subagents from "./subagents";
import * as toolCalls from "./tool-calls";
import * as traceSpans from "./trace-spans";

export type { BatchedEvent, StoredEventRow } from "./events";
export { IMAGE_CHUNK_BYTES, type StoredImage } from "./images";
export type { QueuedMessage } from "./message-queue";
export type { OutboxEntry, OutboxRetry } from "./outbox";
export type { StoredSpan, TraceExportRetry } from "./trace-spans";
export type { RunState, StoredSession } from "./state";
export { MAX_STORED_STEPS, type StepRecord } from "./steps";
export type { StoredSummary } from "./summaries";
export type { SubagentRow } from "./subagents";

/** A child session: the revision of its state its parent last acknowledged. */
const PARENT_TOLD_KEY = "parent_told_revision";

export class SessionStore {
  /**
   * The KV entries below, read once per synchronous stretch (see kv-stretch.ts); the settings and
   * the outbox, which nothing writes but this store (the settings at creation, and when an
   * operator's cap lowers the limits), are kept until `forget` (a rollback, a migration, an
   * erase). A test that writes either behind the store starts a new instance to be seen.
   */
  readonly #kv: KvStretchCache;
  /** The tables made on first write (schema.ts): a reader of one asks `has` first. */
  readonly tables: OnDemandTables<SessionOnDemandTable>;
  /**
   * The open tool calls, read once per synchronous stretch as the KV entries are (kv-stretch.ts
   * says why that is safe), since a unit asks for them from several places between two awaits.
   * Every write to the calls or the messages here drops them, and so does `forget`.
   */
  #openCalls: readonly ToolCall[] | null = null;
  #inTransaction = false;

  constructor(private readonly storage: DurableObjectStorage) {
    this.#kv = new KvStretchCache(storage.kv, new Set([SESSION_KEY, outbox.OUTBOX_KEY]));
    this.tables = new OnDemandTables(() => storage.sql, SESSION_ON_DEMAND_TABLES);
  }

  // ---- the session and its run state (KV) ----------------------------------------------

  /** The session's settings, or undefined when it was never created. Reads only. */
  session(): Readonly<StoredSession> | undefined {
    return readSession(this.#kv);
  }

  /** Whether the session exists (was created and not erased), without reading its settings. */
  exists(): boolean {
    return readRun(this.#kv) !== undefined;
  }

  /**
   * Makes an on-demand table for a write, in the write's transaction. Never in storage that holds
   * no session (erased meanwhile, or never created): such a write fails, as it did when every
   * table was made with the session, instead of leaving a table behind in an erased object.
   */
  ensureTable(name: SessionOnDemandTable): void {
    if (!this.exists()) throw new Error(`a write to ${name} in storage that holds no session (erased, or never created)`);
    this.tables.ensure(name);
  }

  /** Storage was changed or erased other than through this store. */
  forget(): void {
    this.#kv.forget();
    this.tables.forget();
    this.#openCalls = null;
  }

  requireSession(): Readonly<StoredSession> {
    const session = this.session();
    if (!session) throw new Error("session used before it was created");
    return session;
  }

  /** Brings an existing session's storage to the current layout; a never-created id stays empty. */
  migrateIfCreated(): void {
    if (!this.session()) return;
    migrate(this.storage, SESSION_MIGRATIONS);
    this.forget(); // a migration may rewrite the stored run state, and drop or make tables
  }

  putSession(session: StoredSession): void {
    writeSession(this.#kv, session);
  }

  run(): RunState {
    const run = readRun(this.#kv);
    if (!run) throw new Error("run state read before the session was created");
    return run;
  }

  putRun(run: RunState): void {
    writeRun(this.#kv, run);
  }

  /** Creates the tables and writes the settings; the one place that first writes storage. */
  create(session: StoredSession, run: RunState): void {
    migrate(this.storage, SESSION_MIGRATIONS, SESSION_BASELINE);
    this.forget();
    writeSession(this.#kv, session);
    writeRun(this.#kv, run);
  }

  /** Runs `fn` atomically; a transaction opened inside another joins the outer one. */
  transaction<T>(fn: () => T): T {
    if (this.#inTransaction) return fn();
    this.#inTransaction = true;
    try {
      return this.storage.transactionSync(() => this.#kv.batch(fn));
    } catch (err) {
      // Rolled back: what the caches remember of its writes (a table made, too) never happened.
      this.forget();
      throw err;
    } finally {
      this.#inTransaction = false;
    }
  }

  // ---- messages (messages.ts) ------------------------------------------------------------

  /** Saves a message with its token estimate and kind, computed here once for every later fit. */
  appendMessage(role: Role, content: ContentBlock[], now: string): Message {
    this.#openCalls = null;
    return messages.appendMessage(this.storage.sql, role, content, now);
  }

  messages(after = 0, limit = Number.MAX_SAFE_INTEGER): Message[] {
    return messages.messages(this.storage.sql, after, limit);
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
    this.#openCalls = null;
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
    this.#openCalls = null;
    toolCalls.insertToolCall(this.storage.sql, call);
  }

  toolCall(id: string): ToolCall | undefined {
    return toolCalls.toolCall(this.storage.sql, id);
  }

  /**
   * Up to `limit` calls in call order after the call at (`after.first` = message_seq,
   * `after.second` = position), and where the next page starts when more follow.
   */
  toolCallPage(after: IntPairCursor | null, limit: number): { calls: ToolCall[]; next: IntPairCursor | null } {
    return toolCalls.toolCallPage(this.storage.sql, after, limit);
  }

  toolCalls(): ToolCall[] {
    return toolCalls.toolCalls(this.storage.sql);
  }

  /** The calls of the latest model response whose results the model has not seen yet. */
  openToolCalls(): ToolCall[] {
    if (this.#openCalls === null) {
      const read = toolCalls.openToolCalls(this.storage.sql);
      this.#openCalls = read;
      // Dropped before the continuation of any await, so the next stretch reads storage again.
      queueMicrotask(() => {
        if (this.#openCalls === read) this.#openCalls = null;
      });
    }
    return this.#openCalls.map((call) => ({ ...call }));
  }

  setToolCallStatus(id: string, status: ToolCallStatus, now: string): void {
    this.#openCalls = null;
    toolCalls.setToolCallStatus(this.storage.sql, id, status, now);
  }

  finishToolCall(id: string, output: string, isError: boolean, now: string, startedAt: string | null = null): void {
    this.#openCalls = null;
    toolCalls.finishToolCall(this.storage.sql, id, output, isError, now, startedAt);
  }

  /** Records who decided a call that waited for approval, and how. */
  recordDecision(id: string, decidedBy: string | null, decision: ToolCallDecision, now: string): void {
    this.#openCalls = null;
    toolCalls.recordDecision(this.storage.sql, id, decidedBy, decision, now);
  }

  /** Counts one more restart that cut the call off; returns the count. */
  countRestart(id: string): number {
    this.#openCalls = null;
    return toolCalls.countRestart(this.storage.sql, id);
  }

  // ---- the run's MCP tools (run-tools.ts) ------------------------------------------------

  /** Whether the current run's MCP tools were discovered and saved. */
  runToolsDiscovered(): boolean {
    return runTools.runToolsDiscovered(this.#kv);
  }

  runTools(): DiscoveredTool[] {
    return this.tables.has("run_tools") ? runTools.runTools(this.storage.sql) : [];
  }

  /** Saves the run's MCP tools (in one transaction with the caller's other writes). */
  saveRunTools(tools: readonly DiscoveredTool[], now: string): void {
    this.ensureTable("run_tools");
    runTools.saveRunTools(this.storage.sql, this.#kv, tools, now);
  }

  /** A new run lists its servers' tools again. */
  clearRunTools(): void {
    runTools.clearRunTools(this.tables.has("run_tools") ? this.storage.sql : null, this.#kv);
  }

  // ---- unit timings (steps.ts) -----------------------------------------------------------

  /** Records a unit's timing; keeps the newest `MAX_STORED_STEPS` rows. */
  appendStep(step: Omit<steps.StepRecord, "seq">): void {
    steps.appendStep(this.storage.sql, step);
  }

  /** When the newest unit ended (epoch ms), or 0 before the first. */
  lastStepEnd(): number {
    return steps.lastStepEnd(this.storage.sql);
  }

  steps(after: number, limit: number): steps.StepRecord[] {
    return steps.steps(this.storage.sql, after, limit);
  }

  // ---- the notification outbox (outbox.ts; see notifications/outbox.ts) ------------------

  appendOutbox(entry: outbox.OutboxEntry): void {
    outbox.writeOutbox(this.#kv, [...outbox.readOutbox(this.#kv), entry]);
  }

  /** The oldest `limit` owed notifications, oldest first. */
  outbox(limit: number): readonly Readonly<outbox.OutboxEntry>[] {
    return outbox.readOutbox(this.#kv).slice(0, limit);
  }

  outboxSize(): number {
    return outbox.readOutbox(this.#kv).length;
  }

  removeFromOutbox(ids: readonly string[]): void {
    const owed = outbox.readOutbox(this.#kv);
    const left = outbox.withoutIds(owed, ids);
    if (left !== owed) outbox.writeOutbox(this.#kv, left);
  }

  outboxRetry(): outbox.OutboxRetry {
    return outbox.outboxRetry(this.storage.kv);
  }

  putOutboxRetry(retry: outbox.OutboxRetry): void {
    outbox.putOutboxRetry(this.storage.kv, retry);
  }

  // ---- the trace outbox (trace-spans.ts; see traces/exporter.ts) -------------------------

  appendSpan(span: SpanRecord, now: number): void {
    this.ensureTable("trace_spans");
    traceSpans.appendSpan(this.storage.sql, span, now);
  }

  /** The oldest `limit` spans owed to the collector, oldest first. */
  spans(limit: number): traceSpans.StoredSpan[] {
    return this.tables.has("trace_spans") ? traceSpans.spans(this.storage.sql, limit) : [];
  }

  spanCount(): number {
    return this.tables.has("trace_spans") ? traceSpans.spanCount(this.storage.sql) : 0;
  }

  removeSpansThrough(seq: number): void {
    if (this.tables.has("trace_spans")) traceSpans.removeSpansThrough(this.storage.sql, seq);
  }

  traceExportRetry(): traceSpans.TraceExportRetry {
    return traceSpans.exportRetry(this.storage.kv);
  }

  putTraceExportRetry(retry: traceSpans.TraceExportRetry): void {
    traceSpans.putExportRetry(this.storage.kv, retry);
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
    this.#openCalls = null;
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

  // ---- child sessions (subagents) ----------------------------------------------------

  subagent(toolCallId: string): subagents.SubagentRow | null {
    return this.tables.has("subagents") ? subagents.subagent(this.storage.sql, toolCallId) : null;
  }

  /**
   * Every child this session started. Only an `agent` tool starts one, and a session's tools are
   * fixed when it is created, so a session without one has none and its table is not read.
   */
  subagents(): subagents.SubagentRow[] {
    if (!this.session()?.tools.some((tool) => tool.type === "agent") || !this.tables.has("subagents")) return [];
    return subagents.subagents(this.storage.sql);
  }

  /** The ids of the calls whose child session is started and has not ended: they wait for it. */
  callsWaitingOnChildren(): Set<string> {
    return new Set(
      this.subagents()
        .filter(subagents.isLive)
        .map((row) => row.tool_call_id),
    );
  }

  /** The usage of every child this session started, and theirs, as last heard from each. */
  descendantUsage(): Usage {
    return this.subagents().reduce((sum, row) => subagents.addUsage(sum, row.usage), { ...EMPTY_USAGE });
  }

  subagentsInRun(runStartSeq: number): number {
    return this.tables.has("subagents") ? subagents.countInRun(this.storage.sql, runStartSeq) : 0;
  }

  insertSubagent(toolCallId: string, sessionId: string, runStartSeq: number, now: string): void {
    this.ensureTable("subagents");
    subagents.insertSubagent(this.storage.sql, toolCallId, sessionId, runStartSeq, now);
  }

  deleteSubagent(toolCallId: string): void {
    if (this.tables.has("subagents")) subagents.deleteSubagent(this.storage.sql, toolCallId);
  }

  recordChildState(toolCallId: string, state: Parameters<typeof subagents.recordChildState>[2]): boolean {
    return this.tables.has("subagents") && subagents.recordChildState(this.storage.sql, toolCallId, state);
  }

  markCancelSent(toolCallId: string): void {
    if (this.tables.has("subagents")) subagents.markCancelSent(this.storage.sql, toolCallId);
  }

  /** The child's revision the parent last acknowledged (a child only; -1: none yet). */
  parentToldRevision(): number {
    return this.storage.kv.get<number>(PARENT_TOLD_KEY) ?? -1;
  }

  putParentToldRevision(revision: number): void {
    this.storage.kv.put(PARENT_TOLD_KEY, revision);
  }

  // ---- the event log (events.ts; its rules live in events/event-log.ts) ------------------

  /** Stores the events of one transaction as one row; each `data` is the stored form (see events/frames.ts). */
  appendEvents(firstId: number, batch: readonly events.BatchedEvent[]): void {
    events.appendEvents(this.storage.sql, firstId, batch);
  }

  /** Stored events after `after`, oldest first. */
  eventsAfter(after: number, limit: number): events.StoredEventRow[] {
    return events.eventsAfter(this.storage.sql, after, limit);
  }

  /** The newest stored event id, or 0 when the table is empty. */
  newestEventId(): number {
    return events.newestEventId(this.storage.sql);
  }

  /** The newest event id created before `createdAt` (ISO), or 0. */
  newestEventIdBefore(createdAt: string): number {
    return events.newestEventIdBefore(this.storage.sql, createdAt);
  }

  /** Deletes the events up to `id` and records that they are gone. */
  pruneEventsThrough(id: number): void {
    events.pruneEventsThrough(this.storage.sql, this.#kv, id);
  }

  eventsPrunedThrough(): number {
    return events.eventsPrunedThrough(this.#kv);
  }
}
