/**
 * The session Durable Object: one per session, addressed by tenant and session id. Its RPC
 * methods never call the model; each that changes state runs through `#control`, which
 * reconciles (the alarm set for what is due next, the report owed) in `finally`, and each read
 * through `#query`. Only `alarm()` runs steps, one unit per alarm, so two never run at once.
 */
import { DurableObject } from "cloudflare:workers";
import { type Limits, MAX_QUEUED_MESSAGES } from "../../limits";
import { openEventStream } from "./events/open-stream";
import { CLOSE_CODES, requireStreamFilter, type StreamFilter } from "./events/streams";
import { SessionEngine } from "./engine/engine";
import { openCallsState } from "./engine/tool-results";
import { appliedOutcome, checkRequestKey, type RequestOutcome } from "./request-keys";
import { checkToolSpecs } from "./tools/registry";
import { storeInput } from "./input";
import { type Answer, refusalOf, RUN_NOT_GOING, SESSION_NOT_FOUND, SHOWN, wrongStatus } from "./control/answers";
import { applyDecision, type NextStatus, recordDecisionEntry } from "./control/decisions";
import { parseAuditContext } from "../../audit/entry";
import type { AuditContext } from "../../audit/types";
import { eraseIfExpired, eraseSession } from "./control/erase";
import { storageFootprint, type StorageFootprint } from "../../lifecycle/object-storage";
import { takeSlot, wake } from "./control/wake";
import { initialRun } from "./control/initial-run";
import { createFork, forkCopy } from "./control/fork";
import type { ForkCopy, ForkRows } from "./store/fork";
import { applied, applyKeyed, prepareFirst, startRunWith, takeMessage } from "./control/messages";
import { MAX_TOOL_CALL_PAGE, messagePage, stepPage, toolCallPage } from "./control/pages";
import type { SessionRpc } from "./rpc";
import { familyHooks } from "./subagents/family";
import { reportForParent } from "./subagents/child";
import { applyChildReport } from "./subagents/parent";
import { type ChildReport, parseChildReport } from "./subagents/report";
import { mayAccess, type SessionViewer } from "../viewer";
import { markAtMostOnce } from "./tools/at-most-once";
import {
  ACTIVE_STATUSES,
  SLOT_STATUSES,
  WAITING_STATUSES,
  type SessionStatus,
  type SessionResult,
  type Message,
  type Page,
  type RunInput,
  type RunOptions,
  type Session,
  type SessionInit,
  type Step,
  type ToolCall,
  type ToolCallStatus,
} from "../types";

export { CANCELLED_BEFORE_RESULT } from "./engine/engine";
export const INTERRUPTED_BY_PAUSE = "interrupted by a pause, not run again";

export class SessionObject extends DurableObject<Cloudflare.Env> implements SessionRpc {
  readonly #engine: SessionEngine;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#engine = new SessionEngine(ctx, env);
    // A watcher's keep-alive "ping" is answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
    // On every wake: storage written by an older version is migrated first, and the alarm is
    // set for what is due (it may have been lost with a crash between a write and the alarm).
    void ctx.blockConcurrencyWhile(async () => {
      this.#engine.store.migrateIfCreated();
      this.#engine.family = familyHooks(this.#engine);
      await this.#engine.syncAlarm();
    });
  }

  async create(init: SessionInit, input: RunInput | null, options: RunOptions = {}): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    return this.#change(async () => {
      if (engine.session()) return { ok: false, reason: "session_exists" };
      const tools = checkToolSpecs(init.tools);
      if (tools) return { ok: false, reason: "invalid", detail: tools };
      const prepared = await prepareFirst(engine, input, init.model, init.limits);
      if (!prepared.ok) return prepared;
      if (engine.session()) return { ok: false, reason: "session_exists" };
      const now = engine.nowIso();
      engine.store.create({ ...init, output_schema: init.output_schema ?? null, created_at: now }, initialRun(now));
      if (prepared.input) startRunWith(engine, prepared.input, options);
      return SHOWN;
    }, false);
  }

  /**
   * A child session of an `agent` tool call, asked by its parent's tool unit. Its run starts at
   * once, `queued` when no run slot is free (the parent waits holding none, so a tenant with one
   * slot still runs parent and children in turn). Asked again, it answers the session as it is:
   * the parent may ask after a crash that lost the first answer.
   */
  async createChild(init: SessionInit, input: string, options: RunOptions = {}): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    return this.#change(async () => {
      if (engine.session()) return SHOWN;
      if (typeof input !== "string" || !init?.parent)
        return { ok: false, reason: "invalid", detail: "a child session needs its parent and a text input" };
      const tools = checkToolSpecs(init.tools);
      if (tools) return { ok: false, reason: "invalid", detail: tools };
      const prepared = await prepareFirst(engine, input, init.model, init.limits);
      if (!prepared.ok) return prepared;
      if (engine.session()) return SHOWN;
      const now = engine.nowIso();
      engine.store.create({ ...init, output_schema: init.output_schema ?? null, created_at: now }, initialRun(now));
      // The run's trace (a child of the parent's `execute_tool` span) is kept in its run state from here on.
      const trace = options?.trace;
      if (prepared.input)
        engine.transaction(() =>
          engine.startRun(storeInput(engine.store, prepared.input!, engine.nowIso()), trace ? { trace } : {}, "queued"),
        );
      const claim = await engine.slots.claimChecked(true, () => (engine.store.run().status === "queued" ? null : "moved_on"));
      if (claim.ok && claim.slot === "ok") takeSlot(engine);
      else if (claim.ok && claim.slot === "suspended") engine.cancelRun();
      return SHOWN;
    }, false);
  }

  /** A child's report (subagents/report.ts): recorded once per revision; at the child's end, its call's result. */
  async childReport(report: ChildReport): Promise<SessionResult<null>> {
    return this.#control(async () => {
      if (!this.#engine.session()) return SESSION_NOT_FOUND;
      const parsed = parseChildReport(report);
      if (!parsed) return { ok: false, reason: "invalid", detail: "not a child report" };
      return applyChildReport(this.#engine, parsed);
    });
  }

  /** This session's state as the report its parent is owed (asked by the parent's own look at its children). */
  async parentReport(): Promise<SessionResult<ChildReport>> {
    return this.#query(() => {
      const report = reportForParent(this.#engine);
      return report ? { ok: true, value: report } : { ok: false, reason: "invalid", detail: "this session has no parent" };
    });
  }

  /**
   * A fork of this session: a new session with its settings and its messages up to `atSeq`.
   * The copy is made by `forkCopy` on the source and given here; nothing else writes first.
   */
  async createFork(init: SessionInit, rows: ForkRows, input: RunInput | null, options: RunOptions = {}): Promise<SessionResult<Session>> {
    return this.#change(() => createFork(this.#engine, init, rows, input, options), false);
  }

  /** What a fork of this session at `atSeq` copies (null: every message that ends a whole exchange). Changes nothing. */
  async forkCopy(atSeq: number | null): Promise<SessionResult<ForkCopy>> {
    return this.#query(() => forkCopy(this.#engine, atSeq));
  }

  async get(): Promise<SessionResult<Session>> {
    return this.#query(() => ({ ok: true, value: this.#engine.view() }));
  }

  /**
   * `cap`: the tenant's current limits, which lower the session's own for this and later runs.
   * `requestKey` (here and on `enqueue` and `interrupt`): a message already applied under this
   * key is not applied again; the answer is the session as it stands.
   */
  async start(
    input: RunInput,
    cap: Limits | null = null,
    options: RunOptions = {},
    requestKey: string | null = null,
  ): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    return this.#change(async () => {
      const taken = await takeMessage(engine, input, cap, requestKey);
      if (!taken.ok) return taken.answer;
      if (ACTIVE_STATUSES.includes(engine.store.run().status)) return { ok: false, reason: "run_going" };
      if (cap) engine.capLimits(cap);
      applyKeyed(engine, taken.key, "started", () => startRunWith(engine, taken.prepared, options));
      return SHOWN;
    });
  }

  /** What the message sent with `requestKey` did, or null when none was applied under it. */
  async requestOutcome(requestKey: string): Promise<SessionResult<RequestOutcome | null>> {
    return this.#query(() => {
      const key = checkRequestKey(requestKey);
      return { ok: true, value: key === null ? null : appliedOutcome(this.ctx.storage.kv, key) };
    });
  }

  /**
   * `if_running: enqueue`: the message waits and starts the next run as soon as the current one
   * ends (done or failed; a cancel drops it). Refused when no run is going: the caller starts
   * one instead, through the run admission that a start needs.
   */
  async enqueue(
    input: RunInput,
    cap: Limits | null = null,
    options: RunOptions = {},
    requestKey: string | null = null,
  ): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const { store } = engine;
    return this.#change(async () => {
      const taken = await takeMessage(engine, input, cap, requestKey);
      if (!taken.ok) return taken.answer;
      if (!ACTIVE_STATUSES.includes(store.run().status)) return RUN_NOT_GOING;
      if (store.queuedMessages() >= MAX_QUEUED_MESSAGES) return { ok: false, reason: "queue_full", max: MAX_QUEUED_MESSAGES };
      if (cap) engine.capLimits(cap);
      applyKeyed(engine, taken.key, "enqueued", () =>
        store.enqueueMessage(storeInput(store, taken.prepared, engine.nowIso()), options, engine.nowIso()),
      );
      return SHOWN;
    });
  }

  /**
   * `if_running: interrupt`: the current run stops exactly as a cancel would stop it, and a new
   * run starts with the message, without the session ever showing `cancelled`.
   */
  async interrupt(
    input: RunInput,
    cap: Limits | null = null,
    options: RunOptions = {},
    requestKey: string | null = null,
  ): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const { store } = engine;
    return this.#change(async () => {
      const taken = await takeMessage(engine, input, cap, requestKey);
      if (!taken.ok) return taken.answer;
      if (!ACTIVE_STATUSES.includes(store.run().status)) return RUN_NOT_GOING;
      if (cap) engine.capLimits(cap);
      // A run that waited (or was paused or queued) held no run slot: the new one needs one, and
      // without a free one it starts `queued`, like a waiting run that goes on. Meanwhile the
      // run may have ended, or the same keyed message been applied.
      const claim = await engine.slots.claimChecked(!SLOT_STATUSES.includes(store.run().status), (): SessionResult<Session> | null =>
        applied(engine, taken.key)
          ? { ok: true, value: engine.view() }
          : ACTIVE_STATUSES.includes(store.run().status)
            ? null
            : RUN_NOT_GOING,
      );
      if (!claim.ok) return refusalOf(claim);
      applyKeyed(engine, taken.key, "interrupted", () => {
        engine.interruptRun(storeInput(store, taken.prepared, engine.nowIso()), options, claim.slot === "ok" ? "running" : "queued");
        if (claim.slot === "suspended") engine.cancelRun();
      });
      return SHOWN;
    });
  }

  async cancel(): Promise<SessionResult<Session>> {
    return this.#change(() => {
      const { status } = this.#engine.store.run();
      if (!ACTIVE_STATUSES.includes(status)) return wrongStatus("cancel", status);
      this.#engine.cancelRun();
      return SHOWN;
    });
  }

  async pause(): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const { store } = engine;
    return this.#change(() => {
      const run = store.run();
      if (run.status !== "running" && run.status !== "queued" && !WAITING_STATUSES.includes(run.status)) {
        return wrongStatus("pause", run.status);
      }
      engine.inflight.abortAll("paused");
      engine.transaction(() => {
        // An at-most-once call cut off by the pause may have had its effect: it is not repeated.
        for (const call of store.openToolCalls()) {
          if (call.status === "running" && !markAtMostOnce(engine.toolbox().get(call.name)?.atMostOnce).repeatAfterCut) {
            engine.finishCall(call, INTERRUPTED_BY_PAUSE, true);
            engine.emit("tool_result", store.toolCall(call.id));
          }
        }
        engine.updateRun({ status: "paused", generation: run.generation + 1 });
      });
      return SHOWN;
    });
  }

  async resume(cap: Limits | null = null): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const { store } = engine;
    return this.#change(async () => {
      const { status } = store.run();
      if (status !== "paused") return wrongStatus("resume", status);
      if (cap) engine.capLimits(cap);
      // A paused session holds no run slot: it takes one again if it has work to run now.
      const waits = WAITING_STATUSES.includes(openCallsState(store.openToolCalls(), store.callsWaitingOnChildren()) as SessionStatus);
      // Something else may have moved the session while the index was asked.
      const claim = await engine.slots.claimChecked(!waits, () =>
        store.run().status === "paused" ? null : wrongStatus("resume", store.run().status),
      );
      if (!claim.ok) return refusalOf(claim);
      if (claim.slot === "suspended") {
        engine.cancelRun();
        return SHOWN;
      }
      // A pending retry keeps its backoff and its count: pausing is no way around Retry-After.
      engine.transaction(() => {
        engine.updateRun({ status: claim.slot === "ok" ? "running" : "queued" });
        engine.continueRun(claim.slot === "ok" ? "running" : "queued");
      });
      return SHOWN;
    });
  }

  /** The tenant index granted this queued session a run slot. */
  async slotGranted(): Promise<SessionResult<Session>> {
    return this.#change(() => {
      if (this.#engine.store.run().status === "queued") takeSlot(this.#engine);
      return SHOWN;
    });
  }

  /** `decidedBy`: the subject of the principal who approved, recorded on the call. */
  async approve(
    callId: string,
    decidedBy: string | null = null,
    viewer: SessionViewer | null = null,
    by?: AuditContext,
  ): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const context = parseAuditContext(by);
    const approved = (call: ToolCall): ToolCallStatus =>
      engine.toolbox().get(call.name)?.kind === "client" ? "waiting_tool_output" : "pending";
    return this.#decide(viewer, callId, "waiting_approval", approved, (call) => {
      engine.store.setToolCallStatus(call.id, approved(call), engine.nowIso());
      engine.store.recordDecision(call.id, decidedBy, "approved", engine.nowIso());
      recordDecisionEntry(engine, "tool_call.approved", call, context);
    });
  }

  /** `decidedBy`: the subject of the principal who denied, recorded on the call. */
  async deny(
    callId: string,
    reason: string | null,
    decidedBy: string | null = null,
    viewer: SessionViewer | null = null,
    by?: AuditContext,
  ): Promise<SessionResult<Session>> {
    const engine = this.#engine;
    const context = parseAuditContext(by);
    return this.#decide(viewer, callId, "waiting_approval", "error", (call) => {
      const text = reason ? `denied by a reviewer: ${reason}` : "denied by a reviewer";
      engine.finishCall(call, text, true);
      engine.store.recordDecision(call.id, decidedBy, "denied", engine.nowIso());
      recordDecisionEntry(engine, "tool_call.denied", call, context, reason);
    });
  }

  async submitToolOutput(
    callId: string,
    output: string,
    isError: boolean,
    viewer: SessionViewer | null = null,
  ): Promise<SessionResult<Session>> {
    return this.#decide(viewer, callId, "waiting_tool_output", isError ? "error" : "done", (call) =>
      this.#engine.finishCall(call, output, isError),
    );
  }

  async listMessages(after: number, limit: number): Promise<SessionResult<Page<Message>>> {
    return this.#query(() => messagePage(this.#engine.store, after, limit));
  }

  /** A page of tool calls in call order; `cursor` is the previous page's `next_cursor`. */
  async listToolCalls(cursor: string | null = null, limit: number = MAX_TOOL_CALL_PAGE): Promise<SessionResult<Page<ToolCall>>> {
    return this.#query(() => toolCallPage(this.#engine.store, cursor, limit));
  }

  /** Unit timings, oldest first, after step `after`. */
  async listSteps(after: number, limit: number): Promise<SessionResult<Page<Step>>> {
    return this.#query(() => stepPage(this.#engine.store, after, limit));
  }

  /**
   * Cancels whatever runs and deletes every byte the session stored. A run that is going ends as
   * a cancel ends it (so `session.cancelled` is owed), and every owed notification is handed to
   * the tenant index before the storage that holds it goes; when the index cannot be reached, the
   * session is kept and the caller is asked to try again. A notification the index refuses for good
   * (a bug, logged on both sides) is dropped alone and does not keep the session from going.
   */
  async erase(): Promise<SessionResult<null>> {
    const erased = await this.#control(() => (this.#engine.session() ? eraseSession(this.#engine) : SESSION_NOT_FOUND));
    return erased.ok ? { ok: true, value: null } : erased;
  }

  /**
   * The retention sweep's erase (src/lifecycle/sweep.ts): as `erase`, but only while the session
   * is idle or final and its last change is before `before` (epoch ms); `false`: kept.
   */
  async eraseIfExpired(before: number): Promise<SessionResult<boolean>> {
    if (!Number.isFinite(before)) throw new TypeError("before must be a time");
    return this.#control(() => (this.#engine.session() ? eraseIfExpired(this.#engine, before) : SESSION_NOT_FOUND));
  }

  /**
   * A deleted tenant's session: every byte deleted at once, with no notification handed off (the
   * tenant and its webhooks go with it). Harmless on a session that is already gone.
   */
  async purge(): Promise<void> {
    await this.#engine.eraseAll();
  }

  /** What the object's storage holds (the tenant-deletion proof counts it). */
  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  /**
   * Closes the event streams `filter` selects: called by the tenant index when an API key is
   * revoked (`keyId`) or the tenant suspended (`all`). Returns how many were open.
   */
  async closeStreams(filter: StreamFilter, why: "credentials" | "suspended"): Promise<number> {
    return this.#control(() => {
      if (why !== "credentials" && why !== "suspended") throw new TypeError("why must be credentials or suspended");
      const checked = requireStreamFilter(filter);
      const code = why === "suspended" ? CLOSE_CODES.suspended : CLOSE_CODES.credentials;
      return this.#engine.events.streams.close(checked, code, why === "suspended" ? "tenant suspended" : "credentials revoked");
    });
  }

  /** The event stream (`GET /v1/sessions/{id}/events`), asked for by the gateway only. */
  override async fetch(request: Request): Promise<Response> {
    // A socket's deadline is kept by the alarm, which runs while the object hibernates.
    return this.#control(() => openEventStream(this.#engine, request));
  }

  override async webSocketMessage(): Promise<void> {
    // The stream is one-way; control goes through the REST API ("ping" is answered without a wake).
  }

  /** The ids of the open event streams, for the tenant index's recount of its live streams. */
  async openStreamIds(): Promise<SessionResult<string[]>> {
    return this.#query(() => ({ ok: true, value: this.#engine.events.streams.openIds() }));
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    this.#engine.events.streams.socketClosed(socket);
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  override async alarm(): Promise<void> {
    await this.#control(() => wake(this.#engine), true);
  }

  // ---- private ---------------------------------------------------------------------------

  /**
   * The one wrapper of every control: `fn` changes state, and `reconcile` follows in `finally`,
   * whatever it answered or threw, so no early answer leaves the alarm or the report behind.
   * `fromAlarm`: the alarm's own, the one reconcile that cancels orphaned children.
   */
  async #control<T>(fn: () => T | Promise<T>, fromAlarm = false): Promise<T> {
    try {
      return await fn();
    } finally {
      await this.#engine.reconcile(fromAlarm);
    }
  }

  /** A control answered with the session as it stands once reconciled; `exists`: it needs a session. */
  async #change(fn: () => Answer | Promise<Answer>, exists = true): Promise<SessionResult<Session>> {
    const answer = await this.#control(() => (exists && !this.#engine.session() ? SESSION_NOT_FOUND : fn()));
    if (answer !== SHOWN) return answer;
    return this.#engine.session() ? { ok: true, value: this.#engine.view() } : SESSION_NOT_FOUND;
  }

  /** A read: it changes nothing, so nothing follows it; only a session that exists is read. */
  async #query<T>(fn: () => SessionResult<T>): Promise<SessionResult<T>> {
    return this.#engine.session() ? fn() : SESSION_NOT_FOUND;
  }

  /** A decision on a waiting call; with `viewer`, only for a caller the access rule lets see the session. */
  #decide(
    viewer: SessionViewer | null,
    callId: string,
    expected: ToolCallStatus,
    next: NextStatus,
    apply: (call: ToolCall) => void,
  ): Promise<SessionResult<Session>> {
    return this.#change(async () => {
      if (viewer && !mayAccess(viewer, this.#engine.requireSession())) return SESSION_NOT_FOUND;
      const applied = await applyDecision(this.#engine, callId, expected, next, apply);
      return applied.ok ? SHOWN : applied;
    });
  }
}
