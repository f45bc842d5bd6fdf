/**
 * The session's event log: every change is stored as an event in the same transaction as the
 * change, and sent to the open streams only once that transaction has committed, so a change
 * that was rolled back is never shown to anyone. The log is kept within its retention
 * (retention.ts), replayed by id for a watcher that resumes, and ends every stream once the
 * session reaches a final status. Streamed model text goes out through here too, unstored.
 */
import type { BatchedEvent, SessionStore } from "../store/store";
import { FINAL_STATUSES } from "../../../session-config/types";
import {
  type DeltaData,
  type DeltaResetData,
  type EmittedEvent,
  type EventFrame,
  expand,
  frameData,
  frameJson,
  type StoredData,
  sseEvent,
  toStored,
} from "./frames";
import { ageCutoff, countPruneThrough, type LogBounds } from "./retention";
import { CLOSE_CODES, type StreamHub } from "./streams";

export type { EventFrame } from "./frames";

export class EventLog {
  /** Frames stored in the open transaction, sent once it commits; null outside one. */
  #pending: EventFrame[] | null = null;
  /** The open transaction's events, written as one row before it commits; null until its first. */
  #batch: { firstId: number; events: BatchedEvent[] } | null = null;
  /** The blocks drafted by deltas since the last assistant message or reset: what a reset must name. */
  readonly #drafted = new Set<number>();

  constructor(
    private readonly store: SessionStore,
    readonly streams: StreamHub,
  ) {}

  /** Runs `fn` atomically (a nested call joins the outer one); its events go out after the commit. */
  transaction<T>(fn: () => T): T {
    if (this.#pending !== null) return fn();
    const frames: EventFrame[] = [];
    this.#pending = frames;
    let result: T;
    try {
      result = this.store.transaction(() => {
        const value = fn();
        this.#writeBatch();
        return value;
      });
    } finally {
      this.#pending = null;
      this.#batch = null;
    }
    this.#deliver(frames);
    return result;
  }

  /**
   * Stores an event and sends it to every active stream (after the commit, inside a transaction).
   * Inside a transaction the event joins the transaction's one row of events (see `#writeBatch`).
   */
  append(event: EmittedEvent, now: string): EventFrame {
    const stored = toStored(event);
    const row: BatchedEvent = [stored.type, stored.data, now];
    let id: number;
    if (this.#pending !== null) {
      this.#batch ??= { firstId: this.#nextId(), events: [] };
      id = this.#batch.firstId + this.#batch.events.length;
      this.#batch.events.push(row);
    } else {
      id = this.#nextId();
      this.#store([row], id);
    }
    const frame: EventFrame = { id, type: event.type, data: frameData(event), created_at: now };
    if (event.type === "message" && event.data.role === "assistant") this.#drafted.clear();
    if (this.#pending !== null) this.#pending.push(frame);
    else this.#deliver([frame]);
    return frame;
  }

  /** Ids follow the newest ever given out, even once its events were pruned. */
  #nextId(): number {
    return Math.max(this.store.newestEventId(), this.store.eventsPrunedThrough()) + 1;
  }

  #writeBatch(): void {
    const batch = this.#batch;
    this.#batch = null;
    if (batch) this.#store(batch.events, batch.firstId);
  }

  #store(events: BatchedEvent[], firstId: number): void {
    this.store.appendEvents(firstId, events);
    const through = countPruneThrough({ lastId: firstId + events.length - 1, prunedThrough: this.store.eventsPrunedThrough() });
    if (through !== null) this.store.pruneEventsThrough(through);
  }

  /**
   * Text the model is writing, sent to the active streams and never stored. The caller sends it
   * only while its unit is current, so no text of a cancelled or paused call goes out after
   * the cancel or pause did.
   */
  delta(data: DeltaData, now: string): void {
    this.#drafted.add(data.index);
    const frame: EventFrame = { type: "delta", data, created_at: now };
    if (this.#pending !== null) this.#pending.push(frame);
    else this.#deliver([frame]);
  }

  /**
   * Tells the active streams to drop every draft not yet saved, when a model call ended without
   * saving its answer (any failure, retried or not) or the run's generation moved on (pause,
   * cancel, a new run); like a delta, never stored. Nothing is sent when nothing was drafted.
   */
  dropDrafts(now: string): void {
    if (this.#drafted.size === 0) return;
    const data: DeltaResetData = { indices: [...this.#drafted].sort((a, b) => a - b) };
    this.#drafted.clear();
    const frame: EventFrame = { type: "delta_reset", data, created_at: now };
    if (this.#pending !== null) this.#pending.push(frame);
    else this.#deliver([frame]);
  }

  /** The log's bounds as a watcher's cursor is judged against them. */
  bounds(): LogBounds {
    const prunedThrough = this.store.eventsPrunedThrough();
    return { lastId: Math.max(this.store.newestEventId(), prunedThrough), prunedThrough };
  }

  /**
   * At most `limit` stored events after `after`, oldest first, as the frames that were sent live:
   * a replay reads the log a page at a time, never all of it at once.
   */
  replay(after: number, limit: number): EventFrame[] {
    const rows = { message: (seq: number) => this.store.message(seq), toolCall: (id: string) => this.store.toolCall(id) };
    return this.store.eventsAfter(after, limit).map((row) => ({
      id: row.id,
      type: row.type as EventFrame["type"],
      data: expand({ type: row.type, data: row.data } as StoredData, rows),
      created_at: row.created_at,
    }));
  }

  /** Drops the events older than the retention; called whenever a stream opens. */
  pruneByAge(now: number): void {
    const through = this.store.newestEventIdBefore(new Date(ageCutoff(now)).toISOString());
    if (through > this.store.eventsPrunedThrough()) this.store.transaction(() => this.store.pruneEventsThrough(through));
  }

  /** The `end` frame of a session in a final status, or null while it is not final. */
  endFrame(now: string): EventFrame | null {
    if (!this.store.session()) return null;
    const run = this.store.run();
    if (!FINAL_STATUSES.includes(run.status)) return null;
    return { type: "end", data: { status: run.status, stop_reason: run.stop_reason, error: run.error }, created_at: now };
  }

  #deliver(frames: EventFrame[]): void {
    // Nobody watches (the usual case while a run goes): nothing to render or send.
    if (frames.length === 0 || !this.streams.watched()) return;
    for (const frame of frames) this.streams.broadcast(frameJson(frame), sseEvent(frame));
    // After a final status every stream ends: `end`, then the close. A pending stream is not
    // ended here; its opener sends `end` after its first frames.
    if (frames.some((frame) => frame.type === "status")) {
      const end = this.endFrame(new Date().toISOString());
      if (end) this.streams.endActive(frameJson(end), sseEvent(end), CLOSE_CODES.ended, "session ended");
    }
  }
}
