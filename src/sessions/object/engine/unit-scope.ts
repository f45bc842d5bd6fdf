/**
 * What a unit of work may touch. A step gets a `StepScope`: reads, the calls in flight, and
 * `commit`, the one place that checks the unit's generation; the writes (`UnitWriter`) are
 * handed out only inside a commit, so a step cannot save around it. A stale unit's commit
 * throws `StaleUnit`, which the unit runner alone catches: no step checks what a commit did.
 */
import type { Config } from "../../../config";
import type { RunState, SessionStore, StoredSession } from "../store/store";
import type { Toolbox } from "../tools/registry";
import type { DiscoveredTool } from "../tools/mcp/plan";
import type { DeltaData, EmittedEvent, EventData } from "../events/frames";
import type { EventLog } from "../events/event-log";
import type { StreamHub } from "../events/streams";
import { addUsage, type StopReason, type ToolCall, type Usage } from "../../../session-config/types";
import type { InflightCalls } from "./inflight";
import { newSpanId } from "../../../traces/trace-context";
import type { RunTrace } from "../../../session-config/trace-types";
import { toolSpanId, traceparentOf, type UnitTrace } from "./tracing";
import { isLive } from "./gone";
import type { CredentialRequired } from "../../../egress/credentials";

/** The store's reads a step makes; none of them writes. */
export type StoreReads = Pick<
  SessionStore,
  | "run"
  | "openToolCalls"
  | "toolCall"
  | "messageRange"
  | "runOutputSchema"
  | "firstMessageMeta"
  | "messageMeta"
  | "metaNewestFirst"
  | "latestSummary"
  | "messagesForWindow"
  | "imageData"
  | "subagent"
  | "subagentsInRun"
  | "remoteTask"
  | "descendantUsage"
>;

/** The writes a unit makes, given only inside `StepScope.commit` (the engine's, by name: engine.ts). */
export interface UnitWriter {
  readonly store: SessionStore;
  updateRun(patch: Partial<RunState>): RunState;
  finishRun(status: "done" | "failed", stopReason: StopReason, error: string | null): void;
  continueRun(runnable?: "running" | "queued"): void;
  closeOpenCalls(reason: string): void;
  finishCall(call: ToolCall, output: string, isError: boolean, startedAt?: string | null): void;
  emit<T extends EmittedEvent["type"]>(type: T, data: EventData<T> | undefined): void;
  saveRunTools(tools: readonly DiscoveredTool[]): void;
  requireCredential(data: CredentialRequired): void;
  requireSession(): StoredSession;
  toolbox(): Toolbox;
  nowIso(): string;
}

/** What a unit needs of the session's engine, which satisfies it: its writes, and the few parts a scope reads. */
export interface UnitHost extends UnitWriter {
  readonly ctx: { readonly storage: Pick<DurableObjectStorage, "sync"> };
  readonly config: Config;
  readonly env: Cloudflare.Env;
  readonly inflight: Pick<InflightCalls, "begin" | "end">;
  readonly events: Pick<EventLog, "delta" | "dropDrafts"> & { readonly streams: Pick<StreamHub, "watchedWithin"> };
  session(): StoredSession | undefined;
  isCurrent(generation: number): boolean;
  transaction<T>(fn: () => T): T;
}

/** A whole answer's tokens, which the provider served (and bills) whatever became of the unit. */
export type Served = Omit<Usage, "steps">;

/** A stale unit's commit: a start, cancel or pause (or an erase) moved the run on while it ran. */
export class StaleUnit extends Error {
  constructor() {
    super("the unit is stale: its result is discarded");
    this.name = "StaleUnit";
  }
}

/** A step's narrow view of the engine: nothing here writes the session's state but `commit`. */
export interface StepScope {
  readonly generation: number;
  readonly store: StoreReads;
  readonly config: Config;
  readonly env: Cloudflare.Env;
  readonly inflight: Pick<InflightCalls, "begin" | "end">;
  requireSession(): StoredSession;
  toolbox(): Toolbox;
  nowIso(): string;
  /** Sends streamed text to the watchers while the unit is current; a stale unit's goes nowhere. */
  streamText(delta: DeltaData): void;
  /** Whether a stream of the session is open, or was within the last `ms`. */
  watchedWithin(ms: number): boolean;
  /** Makes the writes so far durable; throws `StaleUnit` when the unit went stale meanwhile. */
  persist(): Promise<void>;
  /**
   * Runs `fn` in one transaction and returns its value if the unit is still current; else
   * throws `StaleUnit`, having run nothing, so nothing after it in the step runs either.
   * `served`: a whole answer's tokens, counted even when the unit is stale (see `countServed`).
   */
  commit<T>(fn: (writer: UnitWriter) => T, served?: Served | null): T;
  /** Whether the call still waits for its result: not closed (by a cancel, a result), nor the session erased. */
  callOpen(callId: string): boolean;
  /** The unit's span and what the unit learned for it (written with its step record). */
  readonly trace: UnitTrace;
  /** The `traceparent` of the unit's span for its outgoing requests; undefined when the run is not traced. */
  traceparent(): string | undefined;
  /** The `traceparent` of a tool call's span, for the requests the call makes. */
  traceparentFor(callId: string): string | undefined;
}

/**
 * A unit's scope, bound to the generation it started with. After every `await` a unit saves
 * only through `commit`, which refuses once a start, cancel or pause (or an erase) made the
 * unit stale, so a late answer is never saved.
 */
export class UnitScope implements StepScope {
  readonly #engine: UnitHost;
  readonly trace: UnitTrace = { spanId: newSpanId(), note: {} };

  constructor(
    engine: UnitHost,
    readonly generation: number,
    /** The trace of the run the unit started in. */
    readonly runTrace: RunTrace | null = null,
  ) {
    this.#engine = engine;
  }

  traceparent(): string | undefined {
    return traceparentOf(this.runTrace, this.trace.spanId);
  }

  traceparentFor(callId: string): string | undefined {
    return this.runTrace ? traceparentOf(this.runTrace, toolSpanId(this.runTrace, callId)) : undefined;
  }

  get store(): StoreReads {
    return this.#engine.store;
  }

  get config(): Config {
    return this.#engine.config;
  }

  get env(): Cloudflare.Env {
    return this.#engine.env;
  }

  get inflight(): Pick<InflightCalls, "begin" | "end"> {
    return this.#engine.inflight;
  }

  requireSession(): StoredSession {
    return this.#engine.requireSession();
  }

  toolbox(): Toolbox {
    return this.#engine.toolbox();
  }

  nowIso(): string {
    return this.#engine.nowIso();
  }

  /** The one generation check: whether the unit's result may still be saved or shown. */
  get current(): boolean {
    return this.#engine.isCurrent(this.generation);
  }

  streamText(delta: DeltaData): void {
    if (this.current) this.#engine.events.delta(delta, this.#engine.nowIso());
  }

  /** A current unit that ends without saving its answer drops the drafts it streamed (a stale one's went when the generation moved). */
  dropDrafts(): void {
    if (this.current) this.#engine.events.dropDrafts(this.#engine.nowIso());
  }

  watchedWithin(ms: number): boolean {
    return this.#engine.events.streams.watchedWithin(ms);
  }

  callOpen(callId: string): boolean {
    const row = this.#exists() ? this.#engine.store.toolCall(callId) : undefined;
    return row !== undefined && row.status !== "done" && row.status !== "error";
  }

  /**
   * Writes the unit's own record (its step row and span) in one transaction, current or stale:
   * the runner's alone, not a step's. Nothing once the session was erased meanwhile.
   */
  record(fn: (store: SessionStore) => void): void {
    if (this.#exists()) this.#engine.store.transaction(() => fn(this.#engine.store));
  }

  /** The scope's one existence check, for what it writes or reads whatever the generation: an erase may come at any await. */
  #exists(): boolean {
    return isLive(this.#engine.store);
  }

  async persist(): Promise<void> {
    await this.#engine.ctx.storage.sync();
    if (!this.current) throw new StaleUnit();
  }

  commit<T>(fn: (writer: UnitWriter) => T, served: Served | null = null): T {
    if (this.current) return this.#engine.transaction(() => fn(this.#engine));
    if (served) this.#countServed(served);
    throw new StaleUnit();
  }

  /**
   * Adds a whole answer's tokens to the session's usage, current or not: a stale unit's answer is
   * discarded, but the provider served (and bills) it. Counts no step. Nothing once erased.
   */
  #countServed(usage: Served): void {
    const engine = this.#engine;
    if (!this.#exists()) return;
    engine.transaction(() => engine.updateRun({ usage: addUsage(engine.store.run().usage, usage, 0) }));
  }
}
