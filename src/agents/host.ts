/**
 * The Agent's working parts shared by its control methods and its alarm: run-state
 * updates, the alarm, in-flight calls, stored events and live sockets, reports to the
 * tenant index, and the settling of tool calls. It holds no state of its own beyond
 * what is rebuilt from storage on every wake.
 */
import { type Config, loadConfig } from "../config";
import { capLimits, type Limits } from "../limits";
import { tenantIndexStub } from "../objects";
import { AgentStore, type RunState, type StoredSession } from "./store";
import { buildToolbox, type Toolbox } from "./tools/registry";
import { cutOutput } from "./tools/cut-output";
import { ACTIVE_STATUSES, type Session, type SessionStatus, type SessionSummary, type ToolCall, type ToolResultBlock } from "./types";

/** A failed report to the tenant index is tried again after this long, then longer. */
export const REPORT_RETRY_MS = 5_000;
const REPORT_RETRY_MAX_MS = 5 * 60_000;

export const CANCELLED_BEFORE_RESULT = "cancelled before it finished";

export type SettleOutcome = "none" | "runnable" | "complete" | "waiting_approval" | "waiting_tool_output";

export class AgentHost {
  readonly store: AgentStore;
  #toolbox: Toolbox | undefined;
  readonly #inflight = new Set<AbortController>();
  /**
   * The tenant's tokens today as of the last acknowledged report (null before one, e.g. after
   * a restart). Kept in memory only: it is refreshed at the end of every unit.
   */
  tenantTokensToday: number | null = null;

  constructor(
    readonly ctx: DurableObjectState,
    readonly env: Cloudflare.Env,
  ) {
    this.store = new AgentStore(ctx.storage);
  }

  get config(): Config {
    return loadConfig(this.env);
  }

  session(): StoredSession | undefined {
    return this.store.session();
  }

  requireSession(): StoredSession {
    const session = this.store.session();
    if (!session) throw new Error("session used before it was created");
    return session;
  }

  /** Lowers the session's limits to `cap` where it is lower (see `capLimits`). */
  capLimits(cap: Limits): void {
    const session = this.requireSession();
    this.store.putSession({ ...session, limits: capLimits(session.limits, cap) });
  }

  toolbox(): Toolbox {
    this.#toolbox ??= buildToolbox(this.requireSession().tools);
    return this.#toolbox;
  }

  nowIso(): string {
    return new Date().toISOString();
  }

  view(): Session {
    const session = this.requireSession();
    const run = this.store.run();
    return {
      ...session,
      status: run.status,
      stop_reason: run.stop_reason,
      error: run.error,
      usage: run.usage,
      updated_at: run.updated_at,
    };
  }

  /** True while the unit that started with `generation` may still save its result. */
  isCurrent(generation: number): boolean {
    if (!this.session()) return false; // erased meanwhile
    const run = this.store.run();
    return run.generation === generation && run.status === "running";
  }

  /**
   * Writes a change to the run state. A status change becomes a stored event; every change
   * raises the revision that the tenant index must acknowledge.
   */
  updateRun(patch: Partial<RunState>): RunState {
    const before = this.store.run();
    const now = this.nowIso();
    const after: RunState = { ...before, ...patch, revision: before.revision + 1, updated_at: now };
    this.store.putRun(after);
    if (after.status !== before.status || after.stop_reason !== before.stop_reason) {
      this.emit("status", { status: after.status, stop_reason: after.stop_reason, error: after.error });
    }
    if (after.usage !== before.usage) this.emit("usage", after.usage);
    return after;
  }

  // ---- in-flight work -------------------------------------------------------------

  beginCall(): AbortController {
    const controller = new AbortController();
    this.#inflight.add(controller);
    return controller;
  }

  endCall(controller: AbortController): void {
    this.#inflight.delete(controller);
  }

  /** Aborts the model or tool call in flight, so a cancelled run stops spending. */
  abortInflight(reason: string): void {
    for (const controller of this.#inflight) controller.abort(new DOMException(reason, "AbortError"));
    this.#inflight.clear();
  }

  // ---- the alarm ---------------------------------------------------------------------

  async scheduleAt(at: number): Promise<void> {
    await this.ctx.storage.setAlarm(at);
  }

  /** Sets the alarm for `at` unless one is already due earlier. */
  async scheduleNoLaterThan(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /**
   * Makes sure that a running session has an alarm, and that an unacknowledged report will
   * be retried; otherwise removes the alarm. Called on every wake and after every control.
   */
  async ensureAlarm(): Promise<void> {
    if (!this.session()) return;
    const run = this.store.run();
    const current = await this.ctx.storage.getAlarm();
    if (run.status === "running") {
      const due = Math.max(Date.now(), run.next_attempt_at ?? 0);
      if (current === null || current > due) await this.ctx.storage.setAlarm(due);
    } else if (run.reported_revision < run.revision) {
      // A report is owed: keep whatever retry `report()` scheduled, or schedule one.
      if (current === null) await this.ctx.storage.setAlarm(Date.now() + REPORT_RETRY_MS);
    } else if (current !== null) {
      await this.ctx.storage.deleteAlarm();
    }
  }

  // ---- events ------------------------------------------------------------------------

  /** Frames of events stored in the open transaction, sent only once it commits. */
  #pendingFrames: string[] | null = null;

  /**
   * Runs `fn` atomically (a nested call joins the outer one). Events it emits reach the
   * sockets after the commit, so a rolled-back change is never shown to anyone.
   */
  transaction<T>(fn: () => T): T {
    if (this.#pendingFrames !== null) return fn();
    const frames: string[] = [];
    this.#pendingFrames = frames;
    let result: T;
    try {
      result = this.store.transaction(fn);
    } finally {
      this.#pendingFrames = null;
    }
    for (const frame of frames) this.#send(frame);
    return result;
  }

  /** Stores an event and sends it to every connected socket. */
  emit(type: string, data: unknown): void {
    const now = this.nowIso();
    const id = this.store.appendEvent(type, data, now);
    const frame = JSON.stringify({ id, type, data, created_at: now });
    if (this.#pendingFrames !== null) this.#pendingFrames.push(frame);
    else this.#send(frame);
  }

  #send(frame: string): void {
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(frame);
      } catch {
        // A socket that is closing misses the event; it resumes from the store on reconnect.
      }
    }
  }

  // ---- reports to the tenant index -----------------------------------------------------

  summary(): SessionSummary & { revision: number } {
    const session = this.requireSession();
    const run = this.store.run();
    return {
      id: session.id,
      created_by: session.created_by,
      status: run.status,
      stop_reason: run.stop_reason,
      usage: run.usage,
      created_at: session.created_at,
      updated_at: run.updated_at,
      revision: run.revision,
    };
  }

  /**
   * Tells the tenant index the current status and usage. A failure is not an error for the
   * caller: the revision stays unacknowledged and the alarm tries again, so a final status
   * is never lost.
   */
  async report(): Promise<void> {
    const session = this.requireSession();
    const summary = this.summary();
    let suspended: boolean;
    try {
      const ack = await tenantIndexStub(this.env, session.tenant_id).reportSession(session.tenant_id, summary);
      suspended = ack.suspended;
      this.tenantTokensToday = ack.tokens_today;
    } catch (err) {
      if (!this.session()) return; // erased meanwhile: nothing left to report
      console.warn(`report of session ${session.id} to its tenant index failed: ${String(err)}`);
      const failures = (this.store.run().report_failures ?? 0) + 1;
      this.store.putRun({ ...this.store.run(), report_failures: failures });
      const delay = Math.min(REPORT_RETRY_MAX_MS, REPORT_RETRY_MS * 2 ** (failures - 1));
      await this.scheduleNoLaterThan(Date.now() + delay);
      return;
    }
    if (!this.session()) return;
    const run = this.store.run();
    if (summary.revision > run.reported_revision) {
      this.store.putRun({ ...run, reported_revision: summary.revision, report_failures: 0 });
    }
    // A start admitted just before its tenant was suspended, or a run the suspension sweep
    // missed, learns it here and stops; the final status is reported in turn.
    if (suspended && ACTIVE_STATUSES.includes(run.status)) {
      this.cancelRun();
      await this.report();
    }
  }

  // ---- cancel --------------------------------------------------------------------------

  /**
   * Cancels the run: aborts the call in flight, gives every open call an error result, and
   * bumps the generation so anything still returning is discarded.
   */
  cancelRun(): void {
    const run = this.store.run();
    this.abortInflight("cancelled");
    this.transaction(() => {
      this.closeOpenCalls(CANCELLED_BEFORE_RESULT);
      this.updateRun({ status: "cancelled", stop_reason: "cancelled", error: null, generation: run.generation + 1, attempts: 0, next_attempt_at: 0 });
    });
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
    if (open.length === 0) return "none";
    if (open.some((c) => c.status === "pending" || c.status === "running")) return "runnable";
    if (open.some((c) => c.status === "waiting_approval")) return "waiting_approval";
    if (open.some((c) => c.status === "waiting_tool_output")) return "waiting_tool_output";
    const results: ToolResultBlock[] = open.map((c) => ({
      type: "tool_result",
      tool_use_id: c.id,
      content: c.output ?? "",
      ...(c.is_error ? { is_error: true } : {}),
    }));
    const message = this.transaction(() => {
      const saved = this.store.appendMessage("user", results, this.nowIso());
      this.store.markToolCallsReported(open.map((c) => c.id));
      return saved;
    });
    this.emit("message", message);
    return "complete";
  }

  /**
   * Moves a run on after its tool calls changed: runnable work sets the alarm, calls that
   * wait for a person or a client set the matching status and no alarm.
   */
  async continueRun(): Promise<void> {
    const outcome = this.settleToolCalls();
    const run = this.store.run();
    if (run.status === "paused" || !isGoing(run.status)) return;
    const status: SessionStatus =
      outcome === "waiting_approval" || outcome === "waiting_tool_output" ? outcome : "running";
    if (status !== run.status) this.updateRun({ status });
    if (status === "running") await this.scheduleNoLaterThan(Date.now());
  }
}

function isGoing(status: SessionStatus): boolean {
  return status === "running" || status === "waiting_approval" || status === "waiting_tool_output" || status === "paused";
}
