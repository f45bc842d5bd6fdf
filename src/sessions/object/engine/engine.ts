/**
 * The session's engine: the working parts its control methods and its alarm share (run-state
 * updates, the event log, calls in flight, the run slot, reports to the tenant index). It holds
 * no state of its own beyond what is rebuilt from storage on every wake (the store keeps its
 * reads for one synchronous stretch only: see kv-stretch.ts).
 *
 * Every control and unit ends with `reconcile()` (reconcile.ts); a unit writes only through
 * its scope (unit-scope.ts), whose commit refuses once the run's generation moved on.
 */
import { confineGrant, memoryReachOf } from "../../../memory/end-user";
import { type Config, loadConfig } from "../../../config";
import { AlarmClock } from "../../../storage/alarm-clock";
import { capLimits, type Limits } from "../../../limits";
import { EventLog } from "../events/event-log";
import type { EmittedEvent, EventData } from "../events/frames";
import { CLOSE_CODES, StreamHub } from "../events/streams";
import { forgetInIndex } from "../events/stream-index";
import { isLive } from "./gone";
import { InflightCalls } from "./inflight";
import { sessionView } from "./view";
import { type FamilyHooks, reconcile, syncAlarm } from "./reconcile";
import { RunSlots } from "./slots";
import { collectToolResults } from "./tool-results";
import { Outbox } from "../../../notifications/outbox";
import { AuditOutbox } from "../../../audit/outbox";
import { tenantIndexStub } from "../../../objects";
import { notificationSession } from "../report/notification-snapshot";
import { notificationFor } from "../../../notifications/event-type";
import { Reporter } from "../report/reporter";
import { TraceExporter } from "../../../traces/exporter";
import { closeRunTrace, newRunTrace, recordToolSpan } from "./tracing";
import { SessionStore, type RunState, type StoredSession } from "../store/store";
import { savedToolOutput } from "../redaction";
import type { DiscoveredTool } from "../tools/mcp/plan";
import { buildToolbox, type Toolbox } from "../tools/registry";
import { log } from "../../../log";
import { recordCredentialRequired, type CredentialRequired } from "./credential-required";
import { taintFromResult } from "./taint";
import {
  ACTIVE_STATUSES,
  type ContentBlock,
  EMPTY_USAGE,
  FINAL_STATUSES,
  type OutputSchema,
  type RunOptions,
  type Session,
  type SessionStatus,
  type StopReason,
  type ToolCall,
} from "../../../session-config/types";

export const CANCELLED_BEFORE_RESULT = "cancelled before it finished";

export class SessionEngine {
  readonly store: SessionStore;
  readonly events: EventLog;
  readonly reporter: Reporter;
  readonly outbox: Outbox;
  readonly traces: TraceExporter;
  /** Audit entries of decisions on the session's tool calls, owed to the tenant's log. */
  readonly audit: AuditOutbox;
  readonly inflight = new InflightCalls();
  readonly slots: RunSlots;
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly alarms: AlarmClock;
  /** The session's ties to its parent and children, set by the session object (subagents/family.ts). */
  family: FamilyHooks | null = null;
  #toolbox: Toolbox | undefined;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Cloudflare.Env,
  ) {
    this.store = new SessionStore(ctx.storage);
    this.alarms = new AlarmClock(ctx.storage);
    this.events = new EventLog(this.store, new StreamHub(ctx, forgetInIndex(ctx, env)));
    this.reporter = new Reporter(this.store, env);
    this.outbox = new Outbox(this.store, env);
    this.traces = new TraceExporter(
      this.store,
      env,
      () => isLive(this.store),
      () => void this.syncAlarm().catch(() => {}),
    );
    this.audit = new AuditOutbox(
      () => ctx.storage.sql,
      async (entries) => {
        const tenantId = entries[0]!.tenant_id;
        await tenantIndexStub(env, tenantId).recordAudit(tenantId, entries);
      },
      this.alarms,
      { has: () => this.store.tables.has("audit_outbox"), ensure: () => this.store.ensureTable("audit_outbox") },
    );
    this.slots = new RunSlots(this.store, env, () => this.cancelRun());
  }

  get config(): Config {
    return loadConfig(this.env);
  }

  session(): StoredSession | undefined {
    return this.store.session();
  }

  requireSession(): StoredSession {
    return this.store.requireSession();
  }

  /** Lowers the session's limits to `cap` where it is lower (see `capLimits`). */
  capLimits(cap: Limits): void {
    const session = this.requireSession();
    this.store.putSession({ ...session, limits: capLimits(session.limits, cap) });
  }

  /** The run's tools: the declared ones and what its MCP servers offered when it started. */
  toolbox(): Toolbox {
    if (this.#toolbox) return this.#toolbox;
    const session = this.requireSession();
    // An end user's session reaches its own memory only, whatever its agent granted: the
    // restriction rides on `created_by`, which the session keeps for its life (memory/end-user.ts).
    this.#toolbox = buildToolbox(
      session.tools,
      this.store.runTools(),
      confineGrant(session.memory ?? null, memoryReachOf(session.created_by)),
    );
    return this.#toolbox;
  }

  /** False until the tools of the session's MCP servers are listed and saved for this run. */
  toolsReady(): boolean {
    return !this.requireSession().tools.some((tool) => tool.type === "mcp") || this.store.runToolsDiscovered();
  }

  /** Saves the tools the MCP servers offered, for the rest of the run. */
  saveRunTools(tools: readonly DiscoveredTool[]): void {
    this.store.saveRunTools(tools, this.nowIso());
    this.#toolbox = undefined;
  }

  /** A run starts: its MCP servers are listed anew before its first model call. */
  resetRunTools(): void {
    this.store.clearRunTools();
    this.#toolbox = undefined;
  }

  nowIso(): string {
    return new Date().toISOString();
  }

  /** The session as every response shows it: MCP header values masked. */
  view(): Session {
    return sessionView(this.requireSession(), this.store, this.config.prices);
  }

  /** True while the unit that started with `generation` may still save its result (asked by its scope only). */
  isCurrent(generation: number): boolean {
    // Read from storage after every await (kv-stretch.ts), so a change made meanwhile counts.
    if (!isLive(this.store)) return false; // erased meanwhile
    const run = this.store.run();
    return run.generation === generation && run.status === "running";
  }

  // ---- run state ---------------------------------------------------------------------

  /**
   * Writes a change to the run state. Every change raises the revision the tenant index must
   * acknowledge; a status change is also a stored event and must be told to the index at once.
   * A change that reaches a status tenants are notified of writes the notification to the outbox
   * in the same transaction, so a crash keeps both or neither (see notifications/event-type.ts).
   */
  updateRun(patch: Partial<RunState>): RunState {
    return this.transaction(() => {
      const before = this.store.run();
      const after: RunState = { ...before, ...patch, revision: before.revision + 1, updated_at: this.nowIso() };
      const statusChanged = after.status !== before.status || after.stop_reason !== before.stop_reason;
      if (statusChanged) after.urgent_revision = after.revision;
      if (after.generation !== before.generation) this.events.dropDrafts(after.updated_at); // nothing of the old one will be saved
      // The next unit's queue time counts from the moment the run could go on.
      if (after.status === "running" && before.status !== "running") after.ready_at = Date.now();
      // A run's trace ends with the run (or when the next run replaces it): its root span is written now.
      after.trace = closeRunTrace(this.store, before, after, Date.now());
      this.store.putRun(after);
      const notification = notificationFor(before.status, after.status);
      if (notification)
        this.outbox.record(notification, notificationSession(this.requireSession(), after, this.store.openToolCalls(), this.toolbox()));
      if (statusChanged && FINAL_STATUSES.includes(after.status) && !FINAL_STATUSES.includes(before.status)) this.#logRunEnd(after);
      if (statusChanged) this.emit("status", { status: after.status, stop_reason: after.stop_reason, error: after.error });
      if (after.usage !== before.usage) this.emit("usage", after.usage);
      return after;
    });
  }

  #logRunEnd(run: RunState): void {
    const session = this.requireSession();
    log(run.status === "failed" ? "warn" : "info", "run_ended", {
      tenant_id: session.tenant_id,
      session_id: session.id,
      status: run.status,
      stop_reason: run.stop_reason,
      steps: run.steps,
      duration_ms: run.run_started_at ? Date.now() - run.run_started_at : null,
      ...(run.error ? { error: run.error } : {}),
    });
  }

  /**
   * Starts a run with a new user message: the message is saved, and the generation bumped so
   * that nothing of an earlier run can still save. The message is the run's task, which every
   * model call of the run is sent.
   */
  startRun(content: ContentBlock[], options: RunOptions, status: "running" | "queued" = "running"): void {
    this.transaction(() => {
      const saved = this.store.appendMessage("user", content, this.nowIso());
      // Each run lists its MCP servers' tools afresh.
      this.resetRunTools();
      const run = this.store.run();
      this.store.beginRunOutput(this.outputSchemaOf(options));
      this.updateRun({
        status,
        generation: run.generation + 1,
        runs: (run.runs ?? 0) + 1,
        steps: 0,
        attempts: 0,
        error: null,
        stop_reason: null,
        next_attempt_at: 0,
        run_start_seq: saved.seq,
        ...(options.tainted ? { tainted_run: saved.seq } : {}),
        run_started_at: Date.now(),
        invalid_outputs: 0,
        output_error: null,
        trace: options.trace ? newRunTrace(options.trace, run, Date.now(), this.requireSession().agent_name ?? null) : null,
        redaction: options.redaction ?? null,
      });
      this.emit("message", saved);
    });
    const session = this.requireSession();
    log("info", "run_started", { tenant_id: session.tenant_id, session_id: session.id, model: session.model });
  }

  /** Ends the run; a queued message (`if_running: enqueue`) starts the next at once, in the same transaction, keeping the run slot. */
  finishRun(status: "done" | "failed", stopReason: StopReason, error: string | null): void {
    this.transaction(() => {
      this.updateRun({ status, stop_reason: stopReason, error, attempts: 0, next_attempt_at: 0 });
      this.family?.runEnded?.();
      const next = this.store.dequeueMessage();
      if (next) this.startRun(next.content, next.options);
    });
  }

  /**
   * Ends a run that reached a limit. A run that owes an answer valid for its `output_schema`
   * and reached its step limit without one fails with `invalid_output`; any other ends `done`.
   */
  finishAtLimit(stopReason: "step_limit" | "token_limit" | "budget_limit"): void {
    if (stopReason === "step_limit" && this.store.runOutputSchema()) {
      const { output_error: last } = this.store.run();
      const steps = this.requireSession().limits.max_steps_per_run;
      const error = last
        ? `the step limit (${steps} model steps) was reached; the last answer was not valid: ${last}`
        : `no answer within the step limit (${steps} model steps)`;
      this.finishRun("failed", "invalid_output", error);
      return;
    }
    this.finishRun("done", stopReason, null);
  }

  /** The schema a run's answer must fit: the message's own, else the session's. */
  outputSchemaOf(options: RunOptions): OutputSchema | null {
    return options.output_schema === undefined ? (this.requireSession().output_schema ?? null) : options.output_schema;
  }

  /**
   * Cancels the run: aborts the call in flight, gives every open call an error result, bumps
   * the generation so anything still returning is discarded, and drops the queued messages.
   */
  cancelRun(): void {
    const run = this.store.run();
    this.inflight.abortAll("cancelled");
    this.transaction(() => {
      this.closeOpenCalls(CANCELLED_BEFORE_RESULT);
      this.store.clearQueue();
      this.updateRun({
        status: "cancelled",
        stop_reason: "cancelled",
        error: null,
        generation: run.generation + 1,
        attempts: 0,
        next_attempt_at: 0,
      });
    });
  }

  /**
   * Stops the run exactly as a cancel would (the call in flight aborted, open calls closed, a
   * late answer never saved) and starts a new one with `content`, in one transaction: the
   * session goes from its run to the next without ever being `cancelled`. Queued messages stay.
   */
  interruptRun(content: ContentBlock[], options: RunOptions, status: "running" | "queued" = "running"): void {
    this.inflight.abortAll("interrupted");
    this.transaction(() => {
      this.closeOpenCalls(CANCELLED_BEFORE_RESULT);
      this.startRun(content, options, status);
    });
  }

  // ---- events ------------------------------------------------------------------------

  #transactionDepth = 0;

  /**
   * Runs `fn` atomically; events it emits reach the sockets after the commit. When it owed a
   * notification, the alarm is set for now before anything is awaited, so the write and the
   * wake-up that hands it over are committed together: a crash right after the commit cannot
   * keep the one and lose the other.
   */
  transaction<T>(fn: () => T): T {
    this.#transactionDepth++;
    let result: T;
    try {
      result = this.events.transaction(fn);
    } finally {
      this.#transactionDepth--;
    }
    if (this.#transactionDepth === 0 && this.outbox.takeUnarmed()) this.alarms.wakeWithWrite().catch(() => {});
    return result;
  }

  /** Stores an event with the change being made (see `EventLog.append`). */
  emit<T extends EmittedEvent["type"]>(type: T, data: EventData<T> | undefined): void {
    // The row an event refers to always exists while the session does.
    if (data === undefined) return;
    this.events.append({ type, data } as EmittedEvent, this.nowIso());
  }

  /** A call could not use a vault credential: the event and the status webhook (credential-required.ts). */
  requireCredential(data: CredentialRequired): void {
    recordCredentialRequired(this, data);
  }

  // ---- the end of every control and unit ---------------------------------------------

  /** The alarm and the report the index is owed, after any change (see reconcile.ts). */
  reconcile(fromAlarm = false): Promise<void> {
    return reconcile(this, fromAlarm);
  }

  /** The alarm alone, for a change that owes the index nothing (see reconcile.ts). */
  syncAlarm(): Promise<void> {
    return syncAlarm(this);
  }

  /** Deletes every byte the session stored: nothing left in flight, no stream, no alarm. */
  async eraseAll(): Promise<void> {
    this.inflight.abortAll("erased");
    this.events.streams.close({ all: true }, CLOSE_CODES.ended, "session erased");
    await this.alarms.sync(null);
    const deleting = this.ctx.storage.deleteAll();
    // In the same synchronous stretch as the delete: nothing may read the values it removes.
    this.store.forget();
    // A session created again under this id builds its tools anew.
    this.#toolbox = undefined;
    await deleting;
  }

  // ---- tool calls ----------------------------------------------------------------------

  /** A call's result; `startedAt`, when the tool step ran it, is when this run of it started: its span starts there. */
  finishCall(call: ToolCall, output: string, isError: boolean, startedAt: string | null = null): void {
    const cut = savedToolOutput(output, this.requireSession().limits.max_tool_output_chars, this.store.run().redaction);
    this.transaction(() => {
      taintFromResult(this, call);
      this.store.finishToolCall(call.id, cut, isError, this.nowIso(), startedAt);
      recordToolSpan(this.store, startedAt ? { ...call, started_at: startedAt } : call, cut, isError, Date.now());
    });
  }

  /** Gives every call that has no result an error result, so each tool_use keeps its tool_result. */
  closeOpenCalls(reason: string): void {
    for (const call of this.store.openToolCalls()) {
      if (call.status !== "done" && call.status !== "error") this.finishCall(call, reason, true);
    }
    collectToolResults(this);
  }

  /**
   * Moves a run on after its tool calls changed: calls that wait for a person or a client set
   * the matching status; runnable work makes the session `runnable` — `running` (its alarm
   * follows from `reconcile`) when it holds a run slot, `queued` when none was free.
   */
  continueRun(runnable: "running" | "queued" = "running"): void {
    const state = collectToolResults(this);
    const run = this.store.run();
    if (run.status === "paused" || !ACTIVE_STATUSES.includes(run.status)) return;
    const status: SessionStatus =
      state === "waiting_approval" || state === "waiting_tool_output" || state === "waiting_subagents" ? state : runnable;
    if (status !== run.status) this.updateRun({ status });
  }
}
