/**
 * The session's event log: every change is stored as an event in the same transaction as the
 * change, and sent to connected sockets only once that transaction has committed, so a change
 * that was rolled back is never shown to anyone.
 */
import type { AgentStore } from "../store";

export interface EventFrame {
  id: number;
  type: string;
  data: unknown;
  created_at: string;
}

export class EventLog {
  /** Frames stored in the open transaction, sent once it commits; null outside one. */
  #pending: string[] | null = null;

  constructor(
    private readonly store: AgentStore,
    private readonly sockets: () => WebSocket[],
  ) {}

  /** Runs `fn` atomically (a nested call joins the outer one); its events go out after the commit. */
  transaction<T>(fn: () => T): T {
    if (this.#pending !== null) return fn();
    const frames: string[] = [];
    this.#pending = frames;
    let result: T;
    try {
      result = this.store.transaction(fn);
    } finally {
      this.#pending = null;
    }
    for (const frame of frames) this.broadcast(frame);
    return result;
  }

  /** Stores an event and sends it to every connected socket (after the commit, inside a transaction). */
  append(type: string, data: unknown, now: string): EventFrame {
    const id = this.store.appendEvent(type, data, now);
    const event: EventFrame = { id, type, data, created_at: now };
    const frame = JSON.stringify(event);
    if (this.#pending !== null) this.#pending.push(frame);
    else this.broadcast(frame);
    return event;
  }

  /** Sends a frame to every socket; one that is closing misses it and resumes from the log. */
  broadcast(frame: string): void {
    for (const socket of this.sockets()) {
      try {
        socket.send(frame);
      } catch {
        // closing: it reconnects and replays from the store
      }
    }
  }
}
