/**
 * What a unit of work may touch. A step gets a `StepScope`: reads, the calls in flight, and
 * `commit`, the one place that checks the unit's generation; the writes (`UnitWriter`) are
 * handed out only inside a commit, so a step cannot save around it.
 */
import type { Config } from "../../../config";
import type { StoredSession } from "../store/store";
import type { SessionStore } from "../store/store";
import type { Toolbox } from "../tools/registry";
import type { DeltaData } from "../events/frames";
import { addUsage, type Usage } from "../../../session-config/types";
import type { InflightCalls } from "./inflight";
import type { SessionEngine } from "./engine";
import { newSpanId } from "../../../traces/trace-context";
import type { RunTrace } from "../../../session-config/trace-types";
import { toolSpanId, traceparentOf, type UnitTrace } from "./tracing";

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
  | "exists"
>;

/** The writes a unit makes, given only inside `StepScope.commit`. */
export type UnitWriter = Pick<
  SessionEngine,
  | "store"
  | "updateRun"
  | "finishRun"
  | "continueRun"
  | "closeOpenCalls"
  | "finishCall"
  | "emit"
  | "saveRunTools"
  | "requireSession"
  | "toolbox"
  | "nowIso"
>;

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
  /** Makes the writes so far durable; false when the unit went stale meanwhile. */
  persist(): Promise<boolean>;
  /** Runs `fn` in one transaction if the unit is still current; returns whether it ran. */
  commit(fn: (writer: UnitWriter) => void): boolean;
  /**
   * Adds a whole answer's tokens to the session's usage, current or not: a stale unit's answer is
   * discarded, but the provider served (and bills) it. Counts no step. Nothing once erased.
   */
  countServed(usage: Omit<Usage, "steps">): void;
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
  readonly #engine: SessionEngine;
  readonly trace: UnitTrace = { spanId: newSpanId(), note: {} };

  constructor(
    engine: SessionEngine,
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

  watchedWithin(ms: number): boolean {
    return this.#engine.events.streams.watchedWithin(ms);
  }

  async persist(): Promise<boolean> {
    await this.#engine.ctx.storage.sync();
    return this.current;
  }

  commit(fn: (writer: UnitWriter) => void): boolean {
    if (!this.current) return false;
    this.#engine.transaction(() => fn(this.#engine));
    return true;
  }

  countServed(usage: Omit<Usage, "steps">): void {
    const engine = this.#engine;
    if (!engine.store.exists()) return;
    engine.transaction(() => engine.updateRun({ usage: addUsage(engine.store.run().usage, usage, 0) }));
  }
}
