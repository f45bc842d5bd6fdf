/**
 * The session object's storage, one facade over a module per table (SQL beside its logic); the layout is
 * in storage.md. Nothing is written until the session is created, so an id that was never
 * created leaves no trace.
 */
import type { SpanRecord } from "../../../session-config/trace-types";
import * as events from "./events";
import * as outbox from "./outbox";
import * as remoteTasks from "./remote-tasks";
import * as steps from "./steps";
import * as subagents from "./subagents";
import * as traceSpans from "./trace-spans";
import { EMPTY_USAGE, type Usage } from "../../../session-config/types";
import { ConversationStore } from "./conversation";

/** Present from a create's write until the index answered its admission (store/storage.md). */
const ADMISSION_OWED_KEY = "admission_owed";

export type { BatchedEvent, StoredEventRow } from "./events";
export { IMAGE_CHUNK_BYTES, type StoredImage } from "./images";
export type { QueuedMessage } from "./message-queue";
export type { OutboxEntry, OutboxRetry } from "./outbox";
export type { RemoteTask } from "./remote-tasks";
export type { StoredSpan, TraceExportRetry } from "./trace-spans";
export type { RunState, StoredSession } from "./state";
export { MAX_STORED_STEPS, type StepRecord } from "./steps";
export type { StoredSummary } from "./summaries";
export type { SubagentRow } from "./subagents";

/** A child session: the revision of its state its parent last acknowledged. */
const PARENT_TOLD_KEY = "parent_told_revision";
const CANARY_TOLD_KEY = "canary_told_run";
/** A canary session: the ended runs' facts still owed to the agent store, one key per run (zero-padded, so they list in order). */
const CANARY_OWED_PREFIX = "canary_owed:";
/** A root session: its tree's count. */
const TREE_KEY = "tree";
/** The credentials the current run has said it needs. */
const CREDENTIALS_REQUIRED_KEY = "credentials_required";

/**
 * What a root keeps of the tree of its current run (`run`: that run's `run_start_seq`): the ids
 * of the sessions started in it (so a start asked twice counts once), and its children's model
 * calls (the root's own are its run's `steps`, stored already).
 */
export interface StoredTree {
  run: number;
  children: string[];
  model_calls: number;
}

export class SessionStore extends ConversationStore {
  // ---- a create's admission (control/admission.ts) ------------------------------------------

  /** The limits a new session's admission is still owed with; undefined once the index answered. */
  admissionOwed<T>(): T | undefined {
    return this.kv.get<T>(ADMISSION_OWED_KEY);
  }

  oweAdmission<T>(limits: T): void {
    this.kv.put(ADMISSION_OWED_KEY, limits);
  }

  /**
   * Not stored: when the next ask of an owed admission is due (epoch ms). An ask under way, or one
   * that failed, puts it `CREATE_ADMISSION_RETRY_MS` ahead; a new instance (after a crash) asks at once.
   */
  admissionAskAt = 0;

  admissionSettled(): void {
    this.kv.delete(ADMISSION_OWED_KEY);
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
    outbox.writeOutbox(this.kv, [...outbox.readOutbox(this.kv), entry]);
  }

  /** The oldest `limit` owed notifications, oldest first. */
  outbox(limit: number): readonly Readonly<outbox.OutboxEntry>[] {
    return outbox.readOutbox(this.kv).slice(0, limit);
  }

  outboxSize(): number {
    return outbox.readOutbox(this.kv).length;
  }

  removeFromOutbox(ids: readonly string[]): void {
    const owed = outbox.readOutbox(this.kv);
    const left = outbox.withoutIds(owed, ids);
    if (left !== owed) outbox.writeOutbox(this.kv, left);
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
    return this.subagents().reduce((sum, row) => subagents.sumUsage(sum, row.usage), { ...EMPTY_USAGE });
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

  /** A canary session only: the last run whose end its agent store counted (../canary/tell-canary.ts); 0 for none. */
  canaryToldRun(): number {
    return this.storage.kv.get<number>(CANARY_TOLD_KEY) ?? 0;
  }

  putCanaryToldRun(run: number): void {
    this.storage.kv.put(CANARY_TOLD_KEY, run);
  }

  /** Keeps an ended run's facts until the agent store has them (a run queued behind it replaces the run's state at once). */
  oweCanaryRun<T>(run: number, facts: T): void {
    this.storage.kv.put(CANARY_OWED_PREFIX + String(run).padStart(12, "0"), facts);
  }

  /** The owed runs' facts, oldest first. */
  owedCanaryRuns<T>(limit: number): { run: number; facts: T }[] {
    return [...this.storage.kv.list<T>({ prefix: CANARY_OWED_PREFIX, limit })].map(([key, facts]) => ({
      run: Number(key.slice(CANARY_OWED_PREFIX.length)),
      facts,
    }));
  }

  dropCanaryRun(run: number): void {
    this.storage.kv.delete(CANARY_OWED_PREFIX + String(run).padStart(12, "0"));
  }

  /**
   * A root session's tree for its current run (../subagents/tree.ts): a new run starts a new tree.
   * Absent, as in every session stored before it: nothing counted yet.
   */
  tree(): StoredTree {
    // Run states stored before runs were numbered hold none: one run, 0.
    const run = this.run().run_start_seq ?? 0;
    const stored = this.storage.kv.get<StoredTree>(TREE_KEY);
    return stored !== undefined && stored.run === run ? stored : { run, children: [], model_calls: 0 };
  }

  putTree(tree: StoredTree): void {
    this.storage.kv.put(TREE_KEY, tree);
  }

  /**
   * Whether the current run has not yet said that `key` (a credential and its failure) is needed,
   * and records that it now has: a run says each once, however many calls fail on it.
   */
  firstCredentialRequired(key: string): boolean {
    const run = this.run().run_start_seq ?? 0;
    const stored = this.storage.kv.get<{ run: number; keys: string[] }>(CREDENTIALS_REQUIRED_KEY);
    const keys = stored !== undefined && stored.run === run ? stored.keys : [];
    if (keys.includes(key)) return false;
    this.storage.kv.put(CREDENTIALS_REQUIRED_KEY, { run, keys: [...keys, key] });
    return true;
  }

  // ---- remote A2A tasks under way or waiting for input (remote-tasks.ts) ---------------------------------

  remoteTask(toolCallId: string): remoteTasks.RemoteTask | null {
    return remoteTasks.remoteTask(this.storage.kv, toolCallId);
  }

  putRemoteTask(toolCallId: string, task: remoteTasks.RemoteTask): void {
    remoteTasks.putRemoteTask(this.storage.kv, toolCallId, task);
  }

  deleteRemoteTask(toolCallId: string): void {
    remoteTasks.deleteRemoteTask(this.storage.kv, toolCallId);
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
    events.pruneEventsThrough(this.storage.sql, this.kv, id);
  }

  eventsPrunedThrough(): number {
    return events.eventsPrunedThrough(this.kv);
  }
}
