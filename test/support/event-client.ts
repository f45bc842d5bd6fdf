/**
 * A watcher of a session's event stream for tests, over Server-Sent Events (parsed with
 * `eventsource-parser`, as a client library would) or a WebSocket. Uses only web APIs, so the
 * workerd tests and the Node end-to-end suite share it.
 */
import { createParser } from "eventsource-parser";

export interface Frame {
  id?: number;
  type: string;
  data: Record<string, unknown>;
  created_at: string;
}

/** What one watcher received, in order, with the SSE `id:` of each event where there was one. */
export class Watch {
  readonly frames: Frame[] = [];
  /** The SSE `id:` lines, by frame position; undefined for events without one. */
  readonly sseIds: (string | undefined)[] = [];
  /** Text messages that are not frames (a WebSocket's `pong`). */
  readonly texts: string[] = [];
  comments = 0;
  #closed = false;
  #closeCode: number | undefined;
  readonly #waiters = new Set<() => void>();
  #stop: () => void = () => undefined;
  #send: (text: string) => void = () => {
    throw new Error("this watcher cannot send");
  };

  get closed(): boolean {
    return this.#closed;
  }

  get closeCode(): number | undefined {
    return this.#closeCode;
  }

  /** Stored events only (those with an id). */
  stored(): Frame[] {
    return this.frames.filter((frame) => frame.id !== undefined);
  }

  types(): string[] {
    return this.frames.map((frame) => frame.type);
  }

  /** The last stored event id seen, as a client would keep it for reconnecting. */
  lastId(): number | null {
    const ids = this.stored().map((frame) => frame.id!);
    return ids.length === 0 ? null : ids[ids.length - 1]!;
  }

  /** Waits until `probe` holds over the frames; fails after `timeoutMs`. */
  async until(probe: (watch: Watch) => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (probe(this)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.types())}, closed: ${this.#closed}`));
      }, timeoutMs);
      const check = () => {
        if (!probe(this)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      this.#waiters.add(check);
    });
  }

  untilType(type: string, timeoutMs?: number): Promise<void> {
    return this.until((w) => w.frames.some((f) => f.type === type), `a ${type} frame`, timeoutMs);
  }

  untilClosed(timeoutMs?: number): Promise<void> {
    return this.until((w) => w.closed, "the stream to close", timeoutMs);
  }

  /** Sends a text message (WebSocket watchers only). */
  send(text: string): void {
    this.#send(text);
  }

  onSend(send: (text: string) => void): void {
    this.#send = send;
  }

  /** Stops reading (the client goes away). */
  stop(): void {
    this.#stop();
  }

  push(frame: Frame, sseId?: string): void {
    this.frames.push(frame);
    this.sseIds.push(sseId);
    this.#notify();
  }

  text(value: string): void {
    this.texts.push(value);
    this.#notify();
  }

  end(code?: number): void {
    this.#closed = true;
    this.#closeCode = code;
    this.#notify();
  }

  onStop(stop: () => void): void {
    this.#stop = stop;
  }

  #notify(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }
}

/** Reads a Server-Sent Events response in the background. */
export function watchSse(response: Response): Watch {
  const watch = new Watch();
  if (!response.body) {
    watch.end();
    return watch;
  }
  const parser = createParser({
    onEvent: (event) => watch.push(JSON.parse(event.data) as Frame, event.id),
    onComment: () => {
      watch.comments += 1;
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  watch.onStop(() => void reader.cancel().catch(() => undefined));
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // cut off: the watcher sees it as closed
    }
    watch.end();
  })();
  return watch;
}

/** Collects the frames of an open (accepted) WebSocket. */
export function watchSocket(socket: WebSocket): Watch {
  const watch = new Watch();
  socket.addEventListener("message", (event) => {
    const text = String(event.data);
    if (text.startsWith("{")) watch.push(JSON.parse(text) as Frame);
    else watch.text(text);
  });
  // An error is always followed by a close, which carries the code.
  socket.addEventListener("close", (event) => watch.end(event.code));
  watch.onSend((text) => socket.send(text));
  watch.onStop(() => {
    try {
      socket.close(1000, "done");
    } catch {
      // already closed
    }
  });
  return watch;
}

/** The types of the stored events, in order: what a run's watcher should see. */
export function storedTypes(watch: Watch): string[] {
  return watch.stored().map((frame) => frame.type);
}

/** The text of the `delta` frames, joined per block index, in the order they came. */
export function deltaText(frames: Frame[]): Map<number, string> {
  const blocks = new Map<number, string>();
  for (const frame of frames) {
    if (frame.type !== "delta") continue;
    const { index, text, offset } = frame.data as { index: number; text: string; offset: number };
    blocks.set(index, (blocks.get(index) ?? "").slice(0, offset) + text);
  }
  return blocks;
}
