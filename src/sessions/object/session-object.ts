/**
 * The session Durable Object, one per session (by tenant and session id). A door: each RPC method is one line into its control
 * module (control/). Changes run through `#control`, which reconciles (the alarm for what is due next, the report owed) in
 * `finally`; reads through `#query`. Only `alarm()` runs steps, one unit per alarm, so two never run at once.
 */
import { DurableObject } from "cloudflare:workers";
import type { Limits, PartialLimits } from "../../limits";
import type { AuditContext } from "../../audit/types";
import { storageFootprint, type StorageFootprint } from "../../storage/object-storage";
import { openEventStream } from "./events/open-stream";
import type { StreamFilter } from "./events/streams";
import { SessionEngine } from "./engine/engine";
import { unlessGone, whileLive } from "./engine/gone";
import type { RequestOutcome } from "./request-keys";
import type { ForkCopy, ForkRows } from "./store/fork";
import type { Admission, Created, NotAdmitted, SessionRpc } from "./rpc";
import type { ChildReport } from "./subagents/report";
import type { TreeAnswer, TreeAsk } from "./subagents/tree";
import type { SessionViewer } from "../viewer";
import { type Answer, gone, SESSION_GONE, SHOWN } from "./control/answers";
import * as control from "./control";
import type { Message, Page, RunInput, RunOptions, Session, SessionInit, SessionResult, Step, ToolCall } from "../../session-config/types";

export { CANCELLED_BEFORE_RESULT } from "./engine/engine";
export { INTERRUPTED_BY_PAUSE } from "./control/run-state";

/** What the methods take and answer; each is documented once, in rpc.ts. */
type Shown = Promise<SessionResult<Session>>;
type Cap = Limits | null;
type Key = string | null;
type Viewer = SessionViewer | null;
type Subject = string | null;
const NOTHING = (): void => undefined;

export class SessionObject extends DurableObject<Cloudflare.Env> implements SessionRpc {
  readonly #engine: SessionEngine;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.#engine = new SessionEngine(ctx, env);
    control.boot(ctx, this.#engine);
  }

  async create(init: SessionInit, input: RunInput | null, options: RunOptions = {}, admission: Admission = null): Promise<Created> {
    return this.#change(() => control.create(this.#engine, init, input, options, admission), false);
  }

  async createChild(init: SessionInit, input: string, options: RunOptions = {}): Shown {
    return this.#change(() => control.createChild(this.#engine, init, input, options), false);
  }

  async childReport(report: ChildReport): Promise<SessionResult<null>> {
    return this.#live(() => control.childReport(this.#engine, report));
  }

  async treeTake(ask: TreeAsk): Promise<SessionResult<TreeAnswer>> {
    return this.#live(() => control.treeTake(this.#engine, ask));
  }

  async parentReport(): Promise<SessionResult<ChildReport>> {
    return this.#query(() => control.parentReport(this.#engine));
  }

  async createFork(init: SessionInit, rows: ForkRows, input: RunInput | null, options: RunOptions = {}): Shown {
    return this.#change(() => control.createFork(this.#engine, init, rows, input, options), false);
  }

  async forkCopy(atSeq: number | null): Promise<SessionResult<ForkCopy>> {
    return this.#query(() => control.forkCopy(this.#engine, atSeq));
  }

  async get(): Shown {
    return this.#query(() => ({ ok: true, value: this.#engine.view() }));
  }

  async start(input: RunInput, cap: Cap = null, options: RunOptions = {}, key: Key = null): Shown {
    return this.#change(() => control.start(this.#engine, input, cap, options, key));
  }

  async requestOutcome(requestKey: string): Promise<SessionResult<RequestOutcome | null>> {
    return this.#query(() => control.requestOutcome(this.#engine, requestKey));
  }

  async enqueue(input: RunInput, cap: Cap = null, options: RunOptions = {}, key: Key = null): Shown {
    return this.#change(() => control.enqueue(this.#engine, input, cap, options, key));
  }

  async interrupt(input: RunInput, cap: Cap = null, options: RunOptions = {}, key: Key = null): Shown {
    return this.#change(() => control.interrupt(this.#engine, input, cap, options, key));
  }

  async cancel(): Shown {
    return this.#change(() => control.cancel(this.#engine));
  }

  async pause(): Shown {
    return this.#change(() => control.pause(this.#engine));
  }

  async resume(cap: Cap = null): Shown {
    return this.#change(() => control.resume(this.#engine, cap));
  }

  async slotGranted(): Shown {
    return this.#change(() => control.slotGranted(this.#engine));
  }

  async policyChanged(version: number): Promise<SessionResult<null>> {
    return this.#query(() => control.policyChanged(this.#engine.store, version));
  }

  async setLimits(limits: PartialLimits, by?: AuditContext): Shown {
    return this.#change(() => control.setLimits(this.#engine, limits, by));
  }

  async budgetRaised(tenantLimits: Cap): Shown {
    return this.#change(() => control.budgetRaised(this.#engine, tenantLimits));
  }

  async approve(callId: string, decidedBy: Subject = null, viewer: Viewer = null, by?: AuditContext): Shown {
    return this.#change(() => control.approve(this.#engine, callId, decidedBy, viewer, by));
  }

  async deny(callId: string, reason: string | null, decidedBy: Subject = null, viewer: Viewer = null, by?: AuditContext): Shown {
    return this.#change(() => control.deny(this.#engine, callId, reason, decidedBy, viewer, by));
  }

  async submitToolOutput(callId: string, output: string, isError: boolean, viewer: Viewer = null): Shown {
    return this.#change(() => control.submitToolOutput(this.#engine, callId, output, isError, viewer));
  }

  async listMessages(after: number, limit: number, maxChars?: number): Promise<SessionResult<Page<Message>>> {
    return this.#query(() => control.messagePage(this.#engine.store, after, limit, maxChars));
  }

  async listToolCalls(
    cursor: string | null = null,
    limit: number = control.MAX_TOOL_CALL_PAGE,
    maxChars?: number,
  ): Promise<SessionResult<Page<ToolCall>>> {
    return this.#query(() => control.toolCallPage(this.#engine.store, cursor, limit, maxChars));
  }

  async listSteps(after: number, limit: number): Promise<SessionResult<Page<Step>>> {
    return this.#query(() => control.stepPage(this.#engine.store, after, limit));
  }

  async erase(): Promise<SessionResult<null>> {
    return this.#live(() => control.erase(this.#engine));
  }

  async eraseIfExpired(before: number): Promise<SessionResult<boolean>> {
    return this.#live(() => control.eraseIfExpired(this.#engine, before));
  }

  async purge(): Promise<void> {
    await this.#engine.eraseAll();
  }

  async footprint(): Promise<StorageFootprint> {
    return storageFootprint(this.ctx.storage);
  }

  async closeStreams(filter: StreamFilter, why: "credentials" | "suspended"): Promise<number> {
    return this.#control(() => control.closeStreams(this.#engine, filter, why));
  }

  /** A socket's deadline is kept by the alarm, which runs while the object hibernates. */
  override async fetch(request: Request): Promise<Response> {
    return this.#control(() => openEventStream(this.#engine, request));
  }

  override async webSocketMessage(): Promise<void> {
    // The stream is one-way; control goes through the REST API ("ping" is answered without a wake).
  }

  async openStreamIds(): Promise<SessionResult<string[]>> {
    return this.#query(() => ({ ok: true, value: this.#engine.events.streams.openIds() }));
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    control.socketClosed(this.#engine, socket, code);
  }

  override async alarm(): Promise<void> {
    await this.#control(() => control.wake(this.#engine), NOTHING, true);
  }

  /**
   * The one wrapper of every control: `fn` changes state, and `reconcile` follows in `finally`,
   * whatever it answered or threw, so no early answer leaves the alarm or the report behind.
   * `ifGone`: the answer once the session is gone (`SessionGone`, raised by the engine's check).
   * `fromAlarm`: the alarm's own, the one reconcile that cancels orphaned children.
   */
  async #control<T>(fn: () => T | Promise<T>, ifGone: (() => T) | null = null, fromAlarm = false): Promise<T> {
    try {
      return await (ifGone ? unlessGone(fn, ifGone) : fn());
    } finally {
      await this.#engine.reconcile(fromAlarm);
    }
  }

  /** A control of a session that must exist, answered as `fn` answers. */
  #live<T>(fn: () => Promise<SessionResult<T>>): Promise<SessionResult<T>> {
    return this.#control(whileLive(this.#engine.store, fn), gone);
  }

  /** A control answered with the session as it stands once reconciled; `exists`: it needs a session. */
  #change(fn: () => Answer | Promise<Answer>, exists?: boolean): Shown;
  #change(fn: () => Answer | NotAdmitted | Promise<Answer | NotAdmitted>, exists: boolean): Promise<Created>;
  async #change(fn: () => Answer | NotAdmitted | Promise<Answer | NotAdmitted>, exists = true): Promise<Created> {
    const answer = await this.#control<Answer | NotAdmitted>(exists ? whileLive(this.#engine.store, fn) : fn, gone);
    if (answer !== SHOWN) return answer;
    return this.#engine.session() ? { ok: true, value: this.#engine.view() } : SESSION_GONE;
  }

  /** A read: it changes nothing, so nothing follows it; only a session that exists is read. */
  async #query<T>(fn: () => SessionResult<T>): Promise<SessionResult<T>> {
    return unlessGone(whileLive(this.#engine.store, fn), gone);
  }
}
