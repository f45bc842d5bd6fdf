/**
 * The Agent Durable Object: one per session, addressed by tenant and session id. Its RPC
 * methods change state and never call the model; each ends with `settle()`, which sets the
 * alarm for what is due next. Only `alarm()` runs steps, one unit per alarm, so two steps never
 * run at once.
 */
import { DurableObject } from "cloudflare:workers";
import { capLimits, type Limits, MAX_QUEUED_MESSAGES } from "../../limits";
import { log } from "../../log";
import { decodeIntPairCursor, encodeIntPairCursor } from "../../shared/cursor";
import { decideContext, usesSummaries } from "./context/plan";
import { openEventStream } from "./events/open-stream";
import { CLOSE_CODES, requireStreamFilter, type StreamFilter } from "./events/streams";
import { AgentHost, settleOutcome } from "./engine/engine";
import type { RunState, StepRecord } from "./store/store";
import { APPROVAL_EXPIRED, APPROVAL_EXPIRED_OUTPUT, expiredApprovals } from "./loop/approval-expiry";
import { appliedOutcome, checkRequestKey, noteApplied, type RequestOutcome } from "./request-keys";
import { nextUnit } from "./loop/next-unit";
import { runUnit } from "./loop/units";
import { checkToolSpecs, toolDefinitions } from "./tools/registry";
import { acceptsImages } from "./model/catalog";
import { type PreparedInput, prepareInput, storeInput } from "./input";
import { outputToolsFor } from "./output/call-tools";
import type { SessionRpc } from "./rpc";
import {
  ACTIVE_STATUSES,
  SLOT_STATUSES,
  type AgentFailure,
  type AgentResult,
  type ContentBlock,
  type Message,
  type Page,
  type RunInput,
  type RunOptions,
  type Session,
  type SessionInit,
  type Step,
  SYSTEM_DECIDER,
  type ToolCall,
  type ToolCallStatus,
  EMPTY_USAGE,
} from "../types";

export { CANCELLED_BEFORE_RESULT } from "./engine/engine";
/** The most tool calls one `listToolCalls` answer carries; without a limit, a caller gets this many. */
export const MAX_TOOL_CALL_PAGE = 1_000;
export const INTERRUPTED_BY_PAUSE = "interrupted by a pause, not run again";

const SESSION_NOT_FOUND = { ok: false, reason: "session_not_found" } as const;

/** Hand-offs an erase tries while other calls keep giving the session something to hand off. */
const MAX_ERASE_ROUNDS = 3;

export class Agent extends DurableObject<Cloudflare.Env> implements SessionRpc {
  readonly #host: AgentHost;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#host = new AgentHost(ctx, env);
    // A watcher's keep-alive "ping" is answered by the runtime without waking the object.
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
    // On every wake: storage written by an older version is migrated first, and the alarm is
    // set for what is due (it may have been lost with a crash between a write and the alarm).
    void ctx.blockConcurrencyWhile(async () => {
      this.#host.store.migrateIfCreated();
      await this.#host.syncAlarm();
    });
  }

  async create(init: SessionInit, input: RunInput | null): Promise<AgentResult<Session>> {
    if (this.#host.session()) return { ok: false, reason: "session_exists" };
    const tools = checkToolSpecs(init.tools);
    if (tools) return { ok: false, reason: "invalid", detail: tools };
    const prepared = input === null ? null : await prepareInput(input, this.#inputRules(init.model, init.limits));
    if (prepared && !prepared.ok) return { ok: false, reason: "invalid", detail: prepared.problem };
    if (this.#host.session()) return { ok: false, reason: "session_exists" };
    const now = this.#host.nowIso();
    const run: RunState = {
      status: "idle",
      generation: 0,
      steps: 0,
      attempts: 0,
      error: null,
      stop_reason: null,
      usage: { ...EMPTY_USAGE },
      revision: 1,
      reported_revision: 0,
      urgent_revision: 1,
      last_report_at: 0,
      report_failures: 0,
      report_retry_at: 0,
      next_attempt_at: 0,
      ready_at: 0,
      run_started_at: 0,
      run_start_seq: 0,
      token_ratio: 1,
      invalid_outputs: 0,
      output_error: null,
      updated_at: now,
    };
    this.#host.store.create({ ...init, output_schema: init.output_schema ?? null, created_at: now }, run);
    if (prepared) this.#startRun(prepared.input, {});
    return this.#settled();
  }

  async get(): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    return { ok: true, value: this.#host.view() };
  }

  /**
   * `cap`: the tenant's current limits, which lower the session's own for this and later runs.
   * `requestKey` (here and on `enqueue` and `interrupt`): a message already applied under this
   * key is not applied again; the answer is the session as it stands.
   */
  async start(input: RunInput, cap: Limits | null = null, options: RunOptions = {}, requestKey: string | null = null): Promise<AgentResult<Session>> {
    const taken = await this.#takeMessage(input, cap, requestKey);
    if (!taken.ok) return taken.answer;
    const { key, prepared } = taken;
    if (ACTIVE_STATUSES.includes(this.#host.store.run().status)) return { ok: false, reason: "run_going" };
    if (cap) this.#host.capLimits(cap);
    this.#applyKeyed(key, "started", () => this.#startRun(prepared, options));
    return this.#settled();
  }

  /** What the message sent with `requestKey` did, or null when none was applied under it. */
  async requestOutcome(requestKey: string): Promise<AgentResult<RequestOutcome | null>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    const key = checkRequestKey(requestKey);
    return { ok: true, value: key === null ? null : appliedOutcome(this.ctx.storage.kv, key) };
  }

  /**
   * `if_running: enqueue`: the message waits and starts the next run as soon as the current one
   * ends (done or failed; a cancel drops it). Refused when no run is going: the caller starts
   * one instead, through the run admission that a start needs.
   */
  async enqueue(input: RunInput, cap: Limits | null = null, options: RunOptions = {}, requestKey: string | null = null): Promise<AgentResult<Session>> {
    const host = this.#host;
    const taken = await this.#takeMessage(input, cap, requestKey);
    if (!taken.ok) return taken.answer;
    const { key, prepared } = taken;
    if (!ACTIVE_STATUSES.includes(host.store.run().status)) return { ok: false, reason: "run_not_going" };
    if (host.store.queuedMessages() >= MAX_QUEUED_MESSAGES) return { ok: false, reason: "queue_full", max: MAX_QUEUED_MESSAGES };
    if (cap) host.capLimits(cap);
    this.#applyKeyed(key, "enqueued", () => host.store.enqueueMessage(storeInput(host.store, prepared, host.nowIso()), options, host.nowIso()));
    return this.#settled();
  }

  /**
   * `if_running: interrupt`: the current run stops exactly as a cancel would stop it, and a new
   * run starts with the message, without the session ever showing `cancelled`.
   */
  async interrupt(input: RunInput, cap: Limits | null = null, options: RunOptions = {}, requestKey: string | null = null): Promise<AgentResult<Session>> {
    const host = this.#host;
    const taken = await this.#takeMessage(input, cap, requestKey);
    if (!taken.ok) return taken.answer;
    const { key, prepared } = taken;
    if (!ACTIVE_STATUSES.includes(host.store.run().status)) return { ok: false, reason: "run_not_going" };
    if (cap) host.capLimits(cap);
    // A run that waited (or was paused or queued) held no run slot: the new one needs one, and
    // without a free one it starts `queued`, like a waiting run that goes on.
    const claimed = !SLOT_STATUSES.includes(host.store.run().status);
    const slot = claimed ? await host.claimSlot() : "ok";
    // While the slot was claimed, the session may have been erased, the run ended, or the same
    // keyed message applied; only a slot this call claimed is given back.
    const gone = !host.session();
    const repeated = !gone && this.#applied(key);
    if (gone || repeated || !ACTIVE_STATUSES.includes(host.store.run().status)) {
      // The answer is taken before the release's await, after which the session may be gone.
      const answer: AgentResult<Session> = gone ? SESSION_NOT_FOUND : repeated ? { ok: true, value: host.view() } : { ok: false, reason: "run_not_going" };
      if (claimed && slot === "ok") await host.releaseSlot();
      return answer;
    }
    this.#applyKeyed(key, "interrupted", () => {
      host.interruptRun(storeInput(host.store, prepared, host.nowIso()), options, slot === "ok" ? "running" : "queued");
      if (slot === "suspended") host.cancelRun();
    });
    return this.#settled();
  }

  async cancel(): Promise<AgentResult<Session>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    const { status } = this.#host.store.run();
    if (!ACTIVE_STATUSES.includes(status)) return { ok: false, reason: "wrong_status", action: "cancel", status };
    this.#host.cancelRun();
    return this.#settled();
  }

  async pause(): Promise<AgentResult<Session>> {
    const host = this.#host;
    if (!host.session()) return SESSION_NOT_FOUND;
    const run = host.store.run();
    if (run.status !== "running" && run.status !== "queued" && run.status !== "waiting_approval" && run.status !== "waiting_tool_output") {
      return { ok: false, reason: "wrong_status", action: "pause", status: run.status };
    }
    host.inflight.abortAll("paused");
    host.transaction(() => {
      // An at-most-once call cut off by the pause may have had its effect: it is not repeated.
      for (const call of host.store.openToolCalls()) {
        if (call.status === "running" && host.toolbox().get(call.name)?.atMostOnce !== false) {
          host.finishCall(call, INTERRUPTED_BY_PAUSE, true);
          host.emit("tool_result", host.store.toolCall(call.id));
        }
      }
      host.updateRun({ status: "paused", generation: run.generation + 1 });
    });
    return this.#settled();
  }

  async resume(cap: Limits | null = null): Promise<AgentResult<Session>> {
    const host = this.#host;
    if (!host.session()) return SESSION_NOT_FOUND;
    const { status } = host.store.run();
    if (status !== "paused") return { ok: false, reason: "wrong_status", action: "resume", status };
    if (cap) host.capLimits(cap);
    // A paused session holds no run slot: it takes one again if it has work to run now.
    const waits = ["waiting_approval", "waiting_tool_output"].includes(settleOutcome(host.store.openToolCalls()));
    const slot = waits ? "ok" : await host.claimSlot();
    if (!host.session()) {
      // Erased while the index was asked.
      if (slot === "ok" && !waits) await host.releaseSlot();
      return SESSION_NOT_FOUND;
    }
    const now = host.store.run().status;
    if (now !== "paused") {
      // Something else moved the session while the index was asked (read before the release's await).
      if (slot === "ok" && !waits) await host.releaseSlot();
      return { ok: false, reason: "wrong_status", action: "resume", status: now };
    }
    if (slot === "suspended") {
      host.cancelRun();
      return this.#settled();
    }
    // A pending retry keeps its backoff and its count: pausing is no way around Retry-After.
    host.transaction(() => {
      host.updateRun({ status: slot === "ok" ? "running" : "queued" });
      host.continueRun(slot === "ok" ? "running" : "queued");
    });
    return this.#settled();
  }

  /** The tenant index granted this queued session a run slot. */
  async slotGranted(): Promise<AgentResult<Session>> {
    const host = this.#host;
    if (!host.session()) return SESSION_NOT_FOUND;
    if (host.store.run().status === "queued") this.#takeSlot();
    return this.#settled();
  }

  /** `decidedBy`: the subject of the principal who approved, recorded on the call. */
  async approve(callId: string, decidedBy: string | null = null): Promise<AgentResult<Session>> {
    const host = this.#host;
    const approved = (call: ToolCall): ToolCallStatus => (host.toolbox().get(call.name)?.kind === "client" ? "waiting_tool_output" : "pending");
    return this.#decide(callId, "waiting_approval", approved, (call) => {
      host.store.setToolCallStatus(call.id, approved(call), host.nowIso());
      host.store.recordDecision(call.id, decidedBy, "approved", host.nowIso());
    });
  }

  /** `decidedBy`: the subject of the principal who denied, recorded on the call. */
  async deny(callId: string, reason: string | null, decidedBy: string | null = null): Promise<AgentResult<Session>> {
    const host = this.#host;
    return this.#decide(callId, "waiting_approval", "error", (call) => {
      const text = reason ? `denied by a reviewer: ${reason}` : "denied by a reviewer";
      host.finishCall(call, text, true);
      host.store.recordDecision(call.id, decidedBy, "denied", host.nowIso());
    });
  }

  async submitToolOutput(callId: string, output: string, isError: boolean): Promise<AgentResult<Session>> {
    return this.#decide(callId, "waiting_tool_output", isError ? "error" : "done", (call) => this.#host.finishCall(call, output, isError));
  }

  async listMessages(after: number, limit: number): Promise<AgentResult<Page<Message>>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    const rows = this.#host.store.messages(after, limit + 1);
    const data = rows.slice(0, limit);
    const last = data[data.length - 1];
    return { ok: true, value: { data, next_cursor: rows.length > limit && last ? String(last.seq) : null } };
  }

  /** A page of tool calls in call order; `cursor` is the previous page's `next_cursor`. */
  async listToolCalls(cursor: string | null = null, limit: number = MAX_TOOL_CALL_PAGE): Promise<AgentResult<Page<ToolCall>>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    const after = cursor === null ? null : decodeIntPairCursor(cursor);
    if (cursor !== null && after === null) return { ok: false, reason: "invalid", detail: "not a tool-call cursor" };
    const page = this.#host.store.toolCallPage(after, Math.max(1, Math.min(limit, MAX_TOOL_CALL_PAGE)));
    return { ok: true, value: { data: page.calls, next_cursor: page.next ? encodeIntPairCursor(page.next.first, page.next.second) : null } };
  }

  /** Unit timings, oldest first, after step `after`. */
  async listSteps(after: number, limit: number): Promise<AgentResult<Page<Step>>> {
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    const rows = this.#host.store.steps(after, limit + 1);
    const data = rows.slice(0, limit).map(toStep);
    const last = data[data.length - 1];
    return { ok: true, value: { data, next_cursor: rows.length > limit && last ? String(last.seq) : null } };
  }

  /**
   * Cancels whatever runs and deletes every byte the session stored. A run that is going ends as
   * a cancel ends it (so `session.cancelled` is owed), and every owed notification is handed to
   * the tenant index before the storage that holds it goes; when the index cannot be reached, the
   * session is kept and the caller is asked to try again. A notification the index refuses for good
   * (a bug, logged on both sides) is dropped alone and does not keep the session from going.
   */
  async erase(): Promise<AgentResult<null>> {
    const host = this.#host;
    if (!host.session()) return SESSION_NOT_FOUND;
    // A call that came in during a hand-off may have started a run, or owed a notification, again.
    for (let round = 1; ; round++) {
      if (ACTIVE_STATUSES.includes(host.store.run().status)) host.cancelRun();
      if ((await host.outbox.handOff(true)) === "failed" || (round === MAX_ERASE_ROUNDS && !this.#erasable())) {
        if (!host.session()) return SESSION_NOT_FOUND;
        await host.syncAlarm();
        return { ok: false, reason: "unavailable", detail: "the session's notifications could not be handed to its tenant yet" };
      }
      if (!host.session()) return SESSION_NOT_FOUND; // erased by a concurrent call meanwhile
      if (this.#erasable()) break;
    }
    this.#host.inflight.abortAll("erased");
    this.#host.events.streams.close({ all: true }, CLOSE_CODES.ended, "session erased");
    await this.ctx.storage.deleteAlarm();
    const deleting = this.ctx.storage.deleteAll();
    // In the same synchronous stretch as the delete: nothing may read the values it removes.
    this.#host.store.forget();
    await deleting;
    return { ok: true, value: null };
  }

  /**
   * Closes the event streams `filter` selects: called by the tenant index when an API key is
   * revoked (`keyId`) or the tenant suspended (`all`). Returns how many were open.
   */
  async closeStreams(filter: StreamFilter, why: "credentials" | "suspended"): Promise<number> {
    if (why !== "credentials" && why !== "suspended") throw new TypeError("why must be credentials or suspended");
    const checked = requireStreamFilter(filter);
    const code = why === "suspended" ? CLOSE_CODES.suspended : CLOSE_CODES.credentials;
    const closed = this.#host.events.streams.close(checked, code, why === "suspended" ? "tenant suspended" : "credentials revoked");
    if (closed > 0) await this.#host.syncAlarm();
    return closed;
  }

  /** The event stream (`GET /v1/sessions/{id}/events`), asked for by the gateway only. */
  override async fetch(request: Request): Promise<Response> {
    return openEventStream(this.#host, request);
  }

  override async webSocketMessage(): Promise<void> {
    // The stream is one-way; control goes through the REST API ("ping" is answered without a wake).
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    try {
      socket.close(code === 1005 || code === 1006 ? 1000 : code, "closing");
    } catch {
      // already closed
    }
  }

  override async alarm(): Promise<void> {
    const host = this.#host;
    if (!host.session()) return;
    host.events.streams.closeExpired(Date.now());
    await this.#expireApprovals();
    if (!host.session()) return;
    if (host.store.run().status === "queued") await this.#askForSlot();
    const limits = host.requireSession().limits;
    // A daily budget is checked against the index's count, learned from a report: after a
    // restart, ask once before the first unit instead of running blind.
    if (limits.max_tokens_per_day !== null && host.reporter.tenantTokensToday() === null && host.store.run().status === "running") {
      await host.reporter.send();
    }
    const run = host.store.run();
    const unit = nextUnit({
      run,
      openToolCalls: host.store.openToolCalls().length,
      limits,
      tenantTokensToday: host.reporter.tenantTokensToday(),
      summaryDue: (maxTokens) => {
        const session = host.requireSession();
        if (!usesSummaries(session)) return false;
        const inputs = { store: host.store, session, run, catalog: host.config.models, tools: outputToolsFor(host, toolDefinitions(host.toolbox())).tools };
        return decideContext(inputs, maxTokens).kind === "summarize";
      },
      toolsReady: host.toolsReady(),
      now: Date.now(),
    });
    if (unit.kind === "finish") host.finishAtLimit(unit.stopReason);
    else if (unit.kind === "model" || unit.kind === "tools" || unit.kind === "summary" || unit.kind === "discover") await runUnit(host, unit);
    await host.settle();
  }

  // ---- private ---------------------------------------------------------------------------

  /** A queued session asks again now and then, in case the index's own word was lost. */
  async #askForSlot(): Promise<void> {
    const slot = await this.#host.claimSlot();
    if (!this.#host.session() || this.#host.store.run().status !== "queued") {
      if (slot === "ok") await this.#host.releaseSlot();
      return;
    }
    if (slot === "ok") this.#takeSlot();
    else if (slot === "suspended") this.#host.cancelRun();
  }

  /** Stores the input's images and starts a run with it, in one transaction. */
  #startRun(input: PreparedInput, options: RunOptions): void {
    const host = this.#host;
    host.transaction(() => host.startRun(storeInput(host.store, input, host.nowIso()), options));
  }

  /**
   * Checks an input for a run of this session: its limits as capped by the tenant's (`cap`),
   * and its model's capabilities. The images are measured and hashed before any state is read,
   * so the checks that follow see the state as it is after the awaits.
   */
  async #prepare(input: RunInput, cap: Limits | null): Promise<{ ok: true; input: PreparedInput } | ({ ok: false } & AgentFailure)> {
    const session = this.#host.session();
    if (!session) return SESSION_NOT_FOUND;
    const limits = cap ? capLimits(session.limits, cap) : session.limits;
    const prepared = await prepareInput(input, this.#inputRules(session.model, limits));
    if (!prepared.ok) return { ok: false, reason: "invalid", detail: prepared.problem };
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    return prepared;
  }

  #inputRules(model: string, limits: Limits) {
    return { maxImageBytes: limits.max_image_bytes, imagesAccepted: acceptsImages(this.#host.config.models, model) };
  }

  /** Nothing of the session is still owed elsewhere: no run going, no notification unsent. */
  #erasable(): boolean {
    return !ACTIVE_STATUSES.includes(this.#host.store.run().status) && this.#host.store.outboxSize() === 0;
  }

  /**
   * What `start`, `enqueue` and `interrupt` do first: the session must exist, a message already
   * applied under `requestKey` is answered with the session as it stands, and the input is checked
   * and its images prepared; the key is looked at again after that await.
   */
  async #takeMessage(
    input: RunInput,
    cap: Limits | null,
    requestKey: string | null,
  ): Promise<{ ok: true; key: string | null; prepared: PreparedInput } | { ok: false; answer: AgentResult<Session> }> {
    if (!this.#host.session()) return { ok: false, answer: SESSION_NOT_FOUND };
    const key = checkRequestKey(requestKey);
    if (this.#applied(key)) return { ok: false, answer: { ok: true, value: this.#host.view() } };
    const prepared = await this.#prepare(input, cap);
    if (!prepared.ok) return { ok: false, answer: prepared };
    if (this.#applied(key)) return { ok: false, answer: { ok: true, value: this.#host.view() } };
    return { ok: true, key, prepared: prepared.input };
  }

  /** Whether a message was already applied under `key`. */
  #applied(key: string | null): boolean {
    return key !== null && appliedOutcome(this.ctx.storage.kv, key) !== null;
  }

  /** Applies a decision on a waiting call (see `#applyDecision`), then settles. */
  async #decide(callId: string, expected: ToolCallStatus, next: ToolCallStatus | ((call: ToolCall) => ToolCallStatus), apply: (call: ToolCall) => void): Promise<AgentResult<Session>> {
    const applied = await this.#applyDecision(callId, expected, next, apply);
    if (!applied.ok) return applied;
    return this.#settled();
  }

  /** Applies a message and notes its key in one transaction: both are saved, or neither. */
  #applyKeyed(key: string | null, outcome: RequestOutcome, apply: () => void): void {
    this.#host.transaction(() => {
      apply();
      if (key !== null) noteApplied(this.ctx.storage.kv, key, outcome, Date.now());
    });
  }

  /**
   * Applies a decision on a waiting call. When it lets the run go on, the session needs a run
   * slot again (waiting held none): without a free one it goes `queued` rather than refusing.
   */
  async #applyDecision(
    callId: string,
    expected: ToolCallStatus,
    next: ToolCallStatus | ((call: ToolCall) => ToolCallStatus),
    apply: (call: ToolCall) => void,
  ): Promise<AgentResult<null>> {
    const host = this.#host;
    if (!host.session()) return SESSION_NOT_FOUND;
    const found = this.#waitingCall(callId, expected);
    if (!found.ok) return found;
    const after = typeof next === "function" ? next(found.call) : next;
    const outcome = settleOutcome(host.store.openToolCalls().map((c) => (c.id === callId ? { status: after } : c)));
    const needsSlot = (outcome === "runnable" || outcome === "complete") && (host.store.run().status === "waiting_approval" || host.store.run().status === "waiting_tool_output");
    const slot = needsSlot ? await host.claimSlot() : "ok";
    if (!host.session()) {
      // Erased while the index was asked.
      if (needsSlot && slot === "ok") await host.releaseSlot();
      return SESSION_NOT_FOUND;
    }
    const again = this.#waitingCall(callId, expected);
    if (!again.ok) {
      // Decided or cancelled by someone else while the index was asked.
      if (needsSlot && slot === "ok") await host.releaseSlot();
      return again;
    }
    host.transaction(() => {
      apply(again.call);
      host.emit("tool_call", host.store.toolCall(callId));
      host.continueRun(slot === "ok" ? "running" : "queued");
    });
    if (slot === "suspended") host.cancelRun();
    return { ok: true, value: null };
  }

  /**
   * Denies every call whose approval expired, each exactly as a reviewer's deny (which may take
   * a run slot, or make the session `queued`). The alarm that runs this was set for the deadline.
   */
  async #expireApprovals(): Promise<void> {
    const host = this.#host;
    for (const call of expiredApprovals(host.store.openToolCalls(), host.toolbox(), Date.now())) {
      const result = await this.#applyDecision(call.id, "waiting_approval", "error", (waiting) => {
        host.finishCall(waiting, APPROVAL_EXPIRED_OUTPUT, true);
        host.store.recordDecision(waiting.id, SYSTEM_DECIDER, "expired", host.nowIso());
      });
      if (!host.session()) return;
      if (result.ok) {
        const session = host.requireSession();
        log("info", "approval_expired", { tenant_id: session.tenant_id, session_id: session.id, tool_call_id: call.id, tool: call.name, reason: APPROVAL_EXPIRED });
      }
    }
  }

  #waitingCall(callId: string, expected: ToolCallStatus): { ok: true; call: ToolCall } | ({ ok: false } & AgentFailure) {
    const call = this.#host.store.toolCall(callId);
    if (!call) return { ok: false, reason: "tool_call_not_found" };
    if (call.status !== expected) return { ok: false, reason: "tool_call_not_waiting", status: call.status, expected };
    return { ok: true, call };
  }

  /** A queued session that holds a slot now goes on. */
  #takeSlot(): void {
    this.#host.transaction(() => {
      this.#host.updateRun({ status: "running" });
      this.#host.continueRun();
    });
  }

  /** The end of every control: the alarm and the report, then the session as it now stands. */
  async #settled(): Promise<AgentResult<Session>> {
    await this.#host.settle();
    if (!this.#host.session()) return SESSION_NOT_FOUND;
    return { ok: true, value: this.#host.view() };
  }
}

export type { AgentFailure };

function toStep(row: StepRecord): Step {
  return {
    seq: row.seq,
    kind: row.kind,
    started_at: new Date(row.started_at).toISOString(),
    ended_at: new Date(row.ended_at).toISOString(),
    queued_ms: row.queued_ms,
    duration_ms: row.ended_at - row.started_at,
    input_tokens: row.input_tokens,
    output_tokens: row.output_tokens,
    outcome: row.outcome,
  };
}

export { MAX_INPUT_CHARS } from "./input";
