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

/**
 * What one opening of a stream may be sent of a replay, over either transport: nothing is read by
 * the client before it is all queued, and a WebSocket tells nothing of its backlog. Past it the
 * stream closes (a WebSocket with `tooSlow`) and the watcher resumes from the last id it got.
 */
export const MAX_REPLAY_BYTES = MAX_SSE_BACKLOG_BYTES;
/** Events read from storage per page of a replay. */
export const REPLAY_PAGE_EVENTS = 50;

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

/** Which stream this is: its id, noted by the tenant index under its tenant (see `TenantIndex.noteEventStream`). */
export interface StreamTag {
  streamId: string;
  tenantId: string;
}

/** What a socket's attachment keeps: its grant and its tag, which survive hibernation. */
type SocketAttachment = StreamGrant & Partial<StreamTag>;

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
  readonly tag: StreamTag | null;
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
  #deadline: ReturnType<typeof setTimeout>;

  constructor(
    public grant: StreamGrant,
    now: number,
    private readonly gone: (watcher: SseWatcher) => void,
    readonly tag: StreamTag | null = null,
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

  /** Brings the deadline forward to `expiresAt` (never later). */
  shorten(expiresAt: number, now: number): void {
    if (this.#closed || expiresAt >= this.grant.expiresAt) return;
    this.grant = { ...this.grant, expiresAt };
    clearTimeout(this.#deadline);
    this.#deadline = setTimeout(() => this.close(), Math.max(0, expiresAt - now));
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
    readonly tag: StreamTag | null,
    private readonly gone: (tag: StreamTag | null) => void,
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
    this.gone(this.tag);
  }
}

/**
 * Told the tags of streams that closed, gathered over one turn (a suspension closes them all at
 * once), so the tenant index hears of them in one call.
 */
export type ForgetStreams = (tags: StreamTag[]) => void;

export class StreamHub {
  readonly #sse = new Set<SseWatcher>();
  /** Accepted, but their first frames are not sent yet. Memory only: acceptance and activation happen in one wake. */
  readonly #pending = new Set<WebSocket | SseWatcher>();
  #closedTags: StreamTag[] = [];
  /** When a stream was last seen open (ms; memory only: an object woken afresh has seen none). */
  #lastWatchedAt = 0;
  /** Streams refused before the tenant index noted them: their close is nothing to tell it. */
  readonly #unnoted = new Set<string>();

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly forget: ForgetStreams = () => undefined,
  ) {}

  /** Accepts a WebSocket for hibernation; its grant and tag are kept in its attachment, which survives hibernation. */
  acceptSocket(socket: WebSocket, grant: StreamGrant, tag: StreamTag): Watcher {
    this.ctx.acceptWebSocket(socket);
    socket.serializeAttachment({ ...grant, ...tag } satisfies SocketAttachment);
    this.#pending.add(socket);
    return new SocketWatcher(socket, grant, tag, (gone) => this.closed(gone));
  }

  openSse(grant: StreamGrant, now: number, tag: StreamTag): SseWatcher {
    const watcher = new SseWatcher(
      grant,
      now,
      (gone) => {
        this.#sse.delete(gone);
        this.#pending.delete(gone);
        this.closed(gone.tag);
      },
      tag,
    );
    this.#sse.add(watcher);
    this.#pending.add(watcher);
    return watcher;
  }

  /** Brings a stream's deadline forward (its key expires before its token does). */
  shorten(watcher: Watcher, expiresAt: number, now: number): void {
    if (watcher instanceof SseWatcher) return watcher.shorten(expiresAt, now);
    const socket = (watcher as SocketWatcher).socket;
    const attachment = readAttachment(socket);
    if (attachment && expiresAt < attachment.expiresAt) socket.serializeAttachment({ ...attachment, expiresAt } satisfies SocketAttachment);
  }

  /** How many streams are open, pending ones included: what `max_streams_per_session` counts. */
  count(): number {
    return this.#sse.size + [...this.#sockets()].length;
  }

  /** The ids of the open streams, pending ones included, for the tenant index's recount. */
  openIds(): string[] {
    const ids = [...this.#sse].map((watcher) => watcher.tag?.streamId);
    for (const watcher of this.#sockets()) ids.push(watcher.tag?.streamId);
    return ids.filter((id): id is string => id !== undefined);
  }

  /** A stream closed (a close of ours, the client's, or a cut): the tenant index hears of it once this turn ends. */
  closed(tag: StreamTag | null): void {
    if (tag === null) return;
    if (this.#closedTags.length === 0) queueMicrotask(() => this.#flushClosed());
    this.#closedTags.push(tag);
  }

  /** Closes a stream the tenant index did not note (it refused it, or was not asked). */
  refuse(watcher: Watcher, code: number, reason: string): void {
    if (watcher.tag) this.#unnoted.add(watcher.tag.streamId);
    watcher.close(code, reason);
  }

  /** A socket the client closed, as the runtime hands it to `webSocketClose`. */
  socketClosed(socket: WebSocket): void {
    this.closed(readTag(socket));
  }

  #flushClosed(): void {
    const tags = this.#closedTags.filter((tag) => !this.#unnoted.has(tag.streamId));
    this.#closedTags = [];
    this.#unnoted.clear();
    const unique = new Map(tags.map((tag) => [tag.streamId, tag]));
    if (unique.size > 0) this.forget([...unique.values()]);
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
    const watched = this.#sse.size > 0 || this.ctx.getWebSockets().length > 0;
    if (watched) this.#lastWatchedAt = Date.now();
    return watched;
  }

  /** Whether a stream is open, or was seen open within the last `ms` (a page between two reconnects). */
  watchedWithin(ms: number): boolean {
    return this.watched() || Date.now() - this.#lastWatchedAt < ms;
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
    for (const watcher of this.#sockets())
      earliest = earliest === null ? watcher.grant.expiresAt : Math.min(earliest, watcher.grant.expiresAt);
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
      const attachment = readAttachment(socket);
      // A socket without a readable grant has no right to stay open.
      const grant = attachment ? { keyId: attachment.keyId, expiresAt: attachment.expiresAt } : { keyId: null, expiresAt: 0 };
      yield new SocketWatcher(socket, grant, readTag(socket), (gone) => this.closed(gone));
    }
  }
}

function readAttachment(socket: WebSocket): SocketAttachment | null {
  try {
    const value = socket.deserializeAttachment() as Partial<SocketAttachment> | null;
    if (!value || typeof value.expiresAt !== "number") return null;
    return { ...value, keyId: typeof value.keyId === "string" ? value.keyId : null, expiresAt: value.expiresAt };
  } catch {
    return null;
  }
}

/** A socket's tag; null for one accepted before streams had ids (the index has no row of its own for it). */
function readTag(socket: WebSocket): StreamTag | null {
  const attachment = readAttachment(socket);
  return typeof attachment?.streamId === "string" && typeof attachment.tenantId === "string"
    ? { streamId: attachment.streamId, tenantId: attachment.tenantId }
    : null;
}
