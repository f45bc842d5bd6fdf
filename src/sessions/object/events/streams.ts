/**
 * The session's open event streams: WebSockets, accepted through the hibernation API so that an
 * idle watcher keeps nothing in memory (its grant lives in the socket's attachment), and
 * Server-Sent Events streams, which hold the object in memory while they are open. A stream is
 * "pending" from its acceptance until its first frames are sent, and gets no live frame before.
 */
import { SSE_HEARTBEAT } from "./frames";


/** How long a stream may stay open, whatever its credential: a bound on any missed revocation. */
export const MAX_STREAM_LIFETIME_MS = 60 * 60 * 1000;
/** Server-Sent Events heartbeat, a comment line that keeps proxies from closing an idle stream. */
export const SSE_HEARTBEAT_MS = 15_000;
/** Bytes queued for a Server-Sent Events reader that does not read; past this it is cut off and resumes from the log. */
export const MAX_SSE_BACKLOG_BYTES = 1024 * 1024;

/** WebSocket close codes (4000-4999 are the application's own). */
export const CLOSE_CODES = {
  /** The session reached a final status, or was erased. */
  ended: 1000,
  /** The watcher reads too slowly; it reconnects and resumes from the log. */
  tooSlow: 1013,
  /** The credential expired or its key was revoked: reconnect with a fresh token. */
  credentials: 4401,
  /** The tenant was suspended. */
  suspended: 4403,
} as const;

/** What a stream was opened with: the API key behind its credential, and when its right to exist ends. */
export interface StreamGrant {
  /** The API key the credential is or was exchanged from; null for other JWTs. */
  keyId: string | null;
  /** Epoch ms. */
  expiresAt: number;
}

/** Which streams a close applies to. */
export type StreamFilter = { all: true } | { keyId: string };

/** A filter as received over RPC, checked; throws on anything else. */
export function requireStreamFilter(value: unknown): StreamFilter {
  const filter = value as { all?: unknown; keyId?: unknown } | null;
  if (filter?.all === true) return { all: true };
  if (typeof filter?.keyId === "string" && filter.keyId !== "") return { keyId: filter.keyId };
  throw new TypeError("a stream filter is { all: true } or { keyId }");
}

export function matches(grant: StreamGrant, filter: StreamFilter): boolean {
  return "all" in filter || grant.keyId === filter.keyId;
}

/** The earliest a stream must close: its credential's end, or the lifetime bound. Pure. */
export function streamDeadline(credentialExpiresAt: number | null, now: number): number {
  const bound = now + MAX_STREAM_LIFETIME_MS;
  return credentialExpiresAt === null ? bound : Math.min(credentialExpiresAt, bound);
}

export interface Watcher {
  readonly grant: StreamGrant;
  /** `ws`: the frame as JSON; `sse`: the frame as a Server-Sent Event. */
  send(ws: string, sse: string): void;
  close(code: number, reason: string): void;
}

const encoder = new TextEncoder();

/** A Server-Sent Events stream, held in memory with its heartbeat and its deadline. */
export class SseWatcher implements Watcher {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  readonly #heartbeat: ReturnType<typeof setInterval>;
  readonly #deadline: ReturnType<typeof setTimeout>;

  constructor(
    readonly grant: StreamGrant,
    now: number,
    private readonly gone: (watcher: SseWatcher) => void,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        cancel: () => this.#finish(),
      },
      // Every byte counts against the backlog: nothing is "wanted" ahead of the reader.
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
    this.#heartbeat = setInterval(() => this.#write(SSE_HEARTBEAT), SSE_HEARTBEAT_MS);
    this.#deadline = setTimeout(() => this.close(), Math.max(0, grant.expiresAt - now));
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(_ws: string, sse: string): void {
    this.#write(sse);
  }

  /** An SSE stream has no close code: it just ends (`EventSource` reconnects, and learns why). */
  close(): void {
    if (this.#closed) return;
    try {
      this.#controller.close();
    } catch {
      // already errored or cancelled
    }
    this.#finish();
  }

  #write(text: string): void {
    if (this.#closed) return;
    if ((this.#controller.desiredSize ?? 0) < -MAX_SSE_BACKLOG_BYTES) return this.close();
    this.#controller.enqueue(encoder.encode(text));
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    clearTimeout(this.#deadline);
    this.gone(this);
  }
}

class SocketWatcher implements Watcher {
  constructor(
    readonly socket: WebSocket,
    readonly grant: StreamGrant,
  ) {}

  send(ws: string): void {
    try {
      this.socket.send(ws);
    } catch {
      // closing: the client reconnects and replays from the log
    }
  }

  close(code: number, reason: string): void {
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed
    }
  }
}

export class StreamHub {
  readonly #sse = new Set<SseWatcher>();
  /** Accepted, but their first frames are not sent yet. Memory only: acceptance and activation happen in one wake. */
  readonly #pending = new Set<WebSocket | SseWatcher>();

  constructor(private readonly ctx: DurableObjectState) {}

  /** Accepts a WebSocket for hibernation; its grant is kept in its attachment, which survives hibernation. */
  acceptSocket(socket: WebSocket, grant: StreamGrant): Watcher {
    this.ctx.acceptWebSocket(socket);
    socket.serializeAttachment(grant);
    this.#pending.add(socket);
    return new SocketWatcher(socket, grant);
  }

  openSse(grant: StreamGrant, now: number): SseWatcher {
    const watcher = new SseWatcher(grant, now, (gone) => {
      this.#sse.delete(gone);
      this.#pending.delete(gone);
    });
    this.#sse.add(watcher);
    this.#pending.add(watcher);
    return watcher;
  }

  /** The stream's first frames are out: it gets live frames from now on. */
  activate(watcher: Watcher): void {
    this.#pending.delete(watcher instanceof SocketWatcher ? watcher.socket : (watcher as SseWatcher));
  }

  /** Whether the stream is still open (a close may have come while it was pending). */
  isOpen(watcher: Watcher): boolean {
    if (watcher instanceof SseWatcher) return !watcher.closed;
    const socket = (watcher as SocketWatcher).socket;
    return socket.readyState === WebSocket.OPEN && this.ctx.getWebSockets().includes(socket);
  }

  /** Whether any stream is open, pending ones included. */
  watched(): boolean {
    return this.#sse.size > 0 || this.ctx.getWebSockets().length > 0;
  }

  /** Sends to every active stream. */
  broadcast(ws: string, sse: string): void {
    for (const watcher of this.#watchers()) {
      if (!this.#isPending(watcher)) watcher.send(ws, sse);
    }
  }

  /** Sends a last frame to every active stream and closes it; pending streams are left to their opener. */
  endActive(ws: string, sse: string, code: number, reason: string): void {
    for (const watcher of this.#watchers()) {
      if (this.#isPending(watcher)) continue;
      watcher.send(ws, sse);
      watcher.close(code, reason);
    }
  }

  /** Closes the streams `filter` selects, pending ones too; returns how many. */
  close(filter: StreamFilter, code: number, reason: string): number {
    let closed = 0;
    for (const watcher of this.#watchers()) {
      if (!matches(watcher.grant, filter)) continue;
      watcher.close(code, reason);
      closed += 1;
    }
    return closed;
  }

  /** Closes the streams whose deadline has passed. */
  closeExpired(now: number): number {
    let closed = 0;
    for (const watcher of this.#watchers()) {
      if (watcher.grant.expiresAt > now) continue;
      watcher.close(CLOSE_CODES.credentials, "credentials expired");
      closed += 1;
    }
    return closed;
  }

  /**
   * The earliest deadline of an open WebSocket: the alarm closes it then. Server-Sent Events
   * streams have their own timers, since they keep the object in memory anyway.
   */
  earliestSocketDeadline(): number | null {
    let earliest: number | null = null;
    for (const watcher of this.#sockets()) earliest = earliest === null ? watcher.grant.expiresAt : Math.min(earliest, watcher.grant.expiresAt);
    return earliest;
  }

  #isPending(watcher: Watcher): boolean {
    return this.#pending.has(watcher instanceof SocketWatcher ? watcher.socket : (watcher as SseWatcher));
  }

  *#watchers(): Iterable<Watcher> {
    yield* this.#sockets();
    yield* [...this.#sse];
  }

  *#sockets(): Iterable<SocketWatcher> {
    for (const socket of this.ctx.getWebSockets()) {
      // One that is closing (closed by us, the client not answering yet) is done with.
      if (socket.readyState !== WebSocket.OPEN) continue;
      const grant = readGrant(socket);
      // A socket without a readable grant has no right to stay open.
      yield new SocketWatcher(socket, grant ?? { keyId: null, expiresAt: 0 });
    }
  }
}

function readGrant(socket: WebSocket): StreamGrant | null {
  try {
    const value = socket.deserializeAttachment() as Partial<StreamGrant> | null;
    if (!value || typeof value.expiresAt !== "number") return null;
    return { keyId: typeof value.keyId === "string" ? value.keyId : null, expiresAt: value.expiresAt };
  } catch {
    return null;
  }
}
