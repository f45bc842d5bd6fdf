/**
 * The Agent's working parts, shared by its control methods and its alarm: run-state updates,
 * the alarm, calls in flight, the event log, reports to the tenant index, and the settling of
 * tool calls. It holds no state of its own beyond what is rebuilt from storage on every wake
 * (the store keeps its reads for one synchronous stretch only: see kv-stretch.ts).
 *
 * Two rules live here rather than in each caller: every change a control or a unit makes ends
 * with `settle()` (the alarm set for what is due next, then the report the index is owed), and
 * a unit saves only through its `UnitScope`, which refuses once the run's generation moved on.
 */
import { type Config, loadConfig } from "../../../config";
import { AlarmClock, keepsAlarm } from "../../../storage/alarm-clock";
import { capLimits, type Limits } from "../../../limits";
import { EventLog } from "../events/event-log";
import type { EmittedEvent } from "../events/frames";
import { StreamHub } from "../events/streams";
import { InflightCalls } from "./inflight";
import { Outbox } from "../../../notifications/outbox";
import { notificationSession } from "../../../notifications/outbox-snapshot";
import { notificationFor } from "../../../notifications/event-type";
import { earliestApprovalDeadline } from "../loop/approval-expiry";
import { shouldReport } from "../report/report-policy";
import { Reporter } from "../report/reporter";
import type { ReportAck } from "../../../tenants/types";
import { nextWakeAt } from "../loop/next-wake";
import { tenantIndexStub } from "../../../objects";
import { AgentStore, type RunState, type StoredSession } from "../store/store";
import { cutOutput } from "../tools/cut-output";
import { maskToolSpecs } from "../tools/mcp/masking";
import type { DiscoveredTool } from "../tools/mcp/plan";
import { buildToolbox, type Toolbox } from "../tools/registry";
import { log } from "../../../log";
import {
  ACTIVE_STATUSES,
  type ContentBlock,
  FINAL_STATUSES,
  type OutputSchema,
  type RunOptions,
  type Session,
  type SessionStatus,
  type StopReason,
  type ToolCall,
  type ToolResultBlock,
} from "../../types";

export const CANCELLED_BEFORE_RESULT = "cancelled before it finished";

/** What asking for a run slot gave: one, none free (queue), or a suspended tenant (stop). */
export type SlotClaim = "ok" | "busy" | "suspended";

export type SettleOutcome = "none" | "runnable" | "complete" | "waiting_approval" | "waiting_tool_output";

export class AgentHost {
  /** Whose run slot the last claim asked for (this object is always one session). */
  #slotOwner: { tenantId: string; sessionId: string } | null = null;

  readonly store: AgentStore;
  readonly events: EventLog;
  readonly reporter: Reporter;
  readonly outbox: Outbox;
  readonly inflight = new InflightCalls();
  /** Every alarm is set through it, never at or before now (see storage/alarm-clock.ts). */
  readonly alarms: AlarmClock;
  #toolbox: Toolbox | undefined;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Cloudflare.Env,
  ) {
    this.store = new AgentStore(ctx.storage);
    this.alarms = new AlarmClock(ctx.storage);
    this.events = new EventLog(this.store, new StreamHub(ctx));
    this.reporter = new Reporter(this.store, env);
    this.outbox = new Outbox(this.store, env);
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
    this.#toolbox ??= buildToolbox(this.requireSession().tools, this.store.runTools());
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
    const session = this.requireSession();
    const run = this.store.run();
    const runSchema = this.store.runOutputSchema();
    return {
      ...session,
      notify_url: session.notify_url ?? null,
      // Before any run, the session's own schema; after, the one the run had.
      output_schema: runSchema === undefined ? (session.output_schema ?? null) : runSchema,
      output: run.status === "done" ? this.store.runOutput() : null,
      tools: maskToolSpecs(session.tools),
      status: run.status,
      stop_reason: run.stop_reason,
      error: run.error,
      usage: run.usage,
      // Sessions created before context settings existed stored none: they use `auto`.
      context: session.context ?? { strategy: "auto" },
      queued_messages: this.store.queuedMessages(),
      updated_at: run.updated_at,
    };
  }

  /** True while the unit that started with `generation` may still save its result. */
  isCurrent(generation: number): boolean {
    // Read from storage after every await (kv-stretch.ts), so a change made meanwhile counts.
    if (!this.store.exists()) return false; // erased meanwhile
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
      // The next unit's queue time counts from the moment the run could go on.
      if (after.status === "running" && before.status !== "running") after.ready_at = Date.now();
      this.store.putRun(after);
      const notification = notificationFor(before.status, after.status);
      if (notification) this.outbox.record(notification, notificationSession(this.requireSession(), after, this.store.openToolCalls(), this.toolbox()));
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
        steps: 0,
        attempts: 0,
        error: null,
        stop_reason: null,
        next_attempt_at: 0,
        run_start_seq: saved.seq,
        run_started_at: Date.now(),
        invalid_outputs: 0,
        output_error: null,
      });
      this.emit("message", saved);
    });
    const session = this.requireSession();
    log("info", "run_started", { tenant_id: session.tenant_id, session_id: session.id, model: session.model });
  }

  /**
   * Ends the run with a final status. A message that waits in the queue (`if_running: enqueue`)
   * then starts the next run at once, in the same transaction, so the session keeps its run slot.
   */
  finishRun(status: "done" | "failed", stopReason: StopReason, error: string | null): void {
    this.transaction(() => {
      this.updateRun({ status, stop_reason: stopReason, error, attempts: 0, next_attempt_at: 0 });
      const next = this.store.dequeueMessage();
      if (next) this.startRun(next.content, next.options);
    });
  }

  /**
   * Ends a run that reached a limit. A run that owes an answer valid for its `output_schema`
   * and reached its step limit without one fails with `invalid_output`; any other ends `done`.
   */
  finishAtLimit(stopReason: "step_limit" | "token_limit"): void {
    if (stopReason === "step_limit" && this.store.runOutputSchema()) {
      const { output_error: last } = this.store.run();
      const steps = this.requireSession().limits.max_steps_per_run;
      const error = last ? `the step limit (${steps} model steps) was reached; the last answer was not valid: ${last}` : `no answer within the step limit (${steps} model steps)`;
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
      this.updateRun({ status: "cancelled", stop_reason: "cancelled", error: null, generation: run.generation + 1, attempts: 0, next_attempt_at: 0 });
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
    if (this.#transactionDepth === 0 && this.outbox.takeUnarmed()) this.alarms.set(Date.now()).catch(() => {});
    return result;
  }

  /** Stores an event with the change being made (see `EventLog.append`). */
  emit<T extends EmittedEvent["type"]>(type: T, data: Extract<EmittedEvent, { type: T }>["data"] | undefined): void {
    // The row an event refers to always exists while the session does.
    if (data === undefined) return;
    this.events.append({ type, data } as EmittedEvent, this.nowIso());
  }

  // ---- the end of every control and unit ---------------------------------------------

  /**
   * Sets the alarm for what is due next, then sends the report the index is owed if it is due
   * now, with the notifications owed riding along; then hands over on their own any still owed
   * (a retry). The alarm comes first, so a slow or failing report never delays (or, with a crash,
   * loses) the next step; again after, since both changed what is due.
   */
  async settle(): Promise<void> {
    if (!this.store.exists()) return;
    await this.syncAlarm();
    // Each await lets other calls in: an erase among them leaves nothing to settle.
    if (!this.store.exists()) return;
    let acted = false;
    if (shouldReport(this.store.run(), Date.now())) {
      acted = true;
      const ack = await this.#report();
      // A start admitted just before its tenant was suspended, or a run the suspension sweep
      // missed, learns it here and stops; the final status is reported in turn.
      if (ack?.suspended && this.store.exists() && ACTIVE_STATUSES.includes(this.store.run().status)) {
        this.cancelRun();
        await this.#report();
      }
    }
    if (this.store.exists() && (await this.outbox.handOff()) !== "nothing_owed") acted = true;
    if (acted) await this.syncAlarm();
  }

  /** One call to the index for the report and what the session owes it: one status change, one call. */
  async #report(): Promise<ReportAck | null> {
    const batch = this.outbox.batch();
    const ack = await this.reporter.send(batch);
    if (!batch || !this.store.exists()) return ack;
    if (ack?.notifications_taken) this.outbox.acknowledge(batch);
    else this.outbox.failed(ack ? "the index refused the notifications" : "the report with the notifications failed");
    return ack;
  }

  /** The alarm at or before the next wake `nextWakeAt` asks for, or none when nothing is due. */
  async syncAlarm(): Promise<void> {
    if (!this.store.exists()) return;
    const now = Date.now();
    const target = nextWakeAt(this.store.run(), now, {
      socketDeadline: this.events.streams.earliestSocketDeadline(),
      notificationsDueAt: this.outbox.dueAt(now),
      approvalDeadline: earliestApprovalDeadline(this.store.openToolCalls(), this.toolbox()),
    });
    const current = await this.ctx.storage.getAlarm();
    if (!this.store.exists()) return; // erased meanwhile: no alarm for storage that is gone
    if (target === null) {
      if (current !== null) await this.ctx.storage.deleteAlarm();
      return;
    }
    const wanted = this.alarms.timeFor(target, now);
    // An earlier alarm still to come is kept: the wake finds nothing due yet and sets the right
    // time. One already due is set again (storage/alarm-clock.ts).
    if (!keepsAlarm(current, wanted, now)) await this.ctx.storage.setAlarm(wanted);
  }

  // ---- tool calls ----------------------------------------------------------------------

  finishCall(call: ToolCall, output: string, isError: boolean): void {
    const max = this.requireSession().limits.max_tool_output_chars;
    this.store.finishToolCall(call.id, cutOutput(output, max), isError, this.nowIso());
  }

  /** Gives every call that has no result an error result, so each tool_use keeps its tool_result. */
  closeOpenCalls(reason: string): void {
    for (const call of this.store.openToolCalls()) {
      if (call.status !== "done" && call.status !== "error") this.finishCall(call, reason, true);
    }
    this.settleToolCalls();
  }

  /**
   * Looks at the open tool calls after any of them changed. When all have a result it writes
   * the tool_result message (one result per tool_use, in the order of the tool_use blocks).
   */
  settleToolCalls(): SettleOutcome {
    const open = this.store.openToolCalls();
    const outcome = settleOutcome(open);
    if (outcome !== "complete") return outcome;
    const results: ToolResultBlock[] = open.map((c) => ({
      type: "tool_result",
      tool_use_id: c.id,
      content: c.output ?? "",
      ...(c.is_error ? { is_error: true } : {}),
    }));
    this.transaction(() => {
      const saved = this.store.appendMessage("user", results, this.nowIso());
      this.store.markToolCallsReported(open.map((c) => c.id));
      this.emit("message", saved);
    });
    return "complete";
  }

  /**
   * Moves a run on after its tool calls changed: calls that wait for a person or a client set
   * the matching status; runnable work makes the session `runnable` — `running` (its alarm
   * follows from `settle`) when it holds a run slot, `queued` when none was free.
   */
  continueRun(runnable: "running" | "queued" = "running"): void {
    const outcome = this.settleToolCalls();
    const run = this.store.run();
    if (run.status === "paused" || !ACTIVE_STATUSES.includes(run.status)) return;
    const status: SessionStatus = outcome === "waiting_approval" || outcome === "waiting_tool_output" ? outcome : runnable;
    if (status !== run.status) this.updateRun({ status });
  }

  /**
   * Asks the tenant index for a run slot, for a session that held none (it waited, was paused or
   * queued). An unreachable index counts as busy: the session queues and asks again later.
   */
  async claimSlot(): Promise<SlotClaim> {
    const session = this.requireSession();
    this.#slotOwner = { tenantId: session.tenant_id, sessionId: session.id };
    try {
      const slot = await tenantIndexStub(this.env, session.tenant_id).acquireRun(session.tenant_id, session.id, session.limits.max_concurrent_runs, Date.now());
      return slot.ok ? "ok" : slot.code;
    } catch (error) {
      log("warn", "slot_claim_failed", { tenant_id: session.tenant_id, session_id: session.id, error: String(error) });
      return "busy";
    }
  }

  /**
   * Gives back a slot claimed for a change that did not happen; it also lapses by itself. Named
   * by the ids the claim was made with, so it works after an erase that came during the claim.
   */
  async releaseSlot(): Promise<void> {
    const owner = this.#slotOwner;
    if (!owner) return;
    await tenantIndexStub(this.env, owner.tenantId).releaseRun(owner.tenantId, owner.sessionId).catch(() => {});
  }
}

/**
 * Pure: where the open tool calls of a response stand. `runnable` and `complete` both mean the
 * run can go on (a tool unit, or the next model call); the others wait for someone.
 */
export function settleOutcome(open: readonly Pick<ToolCall, "status">[]): SettleOutcome {
  if (open.length === 0) return "none";
  if (open.some((c) => c.status === "pending" || c.status === "running")) return "runnable";
  if (open.some((c) => c.status === "waiting_approval")) return "waiting_approval";
  if (open.some((c) => c.status === "waiting_tool_output")) return "waiting_tool_output";
  return "complete";
}

/**
 * A unit of work's view of the host, bound to the generation it started with. After every
 * `await` a unit saves only through `commit`, which refuses once a start, cancel or pause (or
 * an erase) made the unit stale, so a late answer is never saved.
 */
export class UnitScope {
  constructor(
    readonly host: AgentHost,
    readonly generation: number,
  ) {}

  get current(): boolean {
    return this.host.isCurrent(this.generation);
  }

  /** Runs `fn` in one transaction if the unit is still current; returns whether it ran. */
  commit(fn: () => void): boolean {
    if (!this.current) return false;
    this.host.transaction(fn);
    return true;
  }
}
