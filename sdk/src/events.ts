/**
 * Following a session's events over Server-Sent Events: the snapshot (or, after a cursor, the
 * replay of what was missed), then each event as it happens. A dropped connection is resumed
 * from the last event id, so nothing is missed or seen twice; the stream ends at the session's
 * `end` event, or when the platform answers 204 (the session ended and nothing is newer).
 */
import { createParser } from "eventsource-parser";
import type { Credential } from "./client.ts";
import { PlatformError } from "./errors.ts";
import type { components } from "./generated/openapi.ts";

export type EventFrame = components["schemas"]["EventFrame"];

export interface FollowEventsOptions {
  /** The platform's origin, as for `createPlatformClient`. */
  baseUrl: string;
  credential: Credential;
  /** Resume after this event id instead of starting with a snapshot. */
  after?: number;
  signal?: AbortSignal;
  fetch?: typeof globalThis.fetch;
  /** Wait before reconnecting after a dropped connection; default 1 s. */
  reconnectDelayMs?: number;
  /** Reconnections in a row without a new event before giving up; default 10. */
  maxReconnects?: number;
  /**
   * Called before each reconnection after a dropped connection. Deltas are never replayed and an
   * attempt that died with a restart sends no `delta_reset`: drop drafts here (`draft.clear()`).
   */
  onReconnect?: () => void;
}

const DEFAULT_RECONNECT_DELAY_MS = 1_000;
const DEFAULT_MAX_RECONNECTS = 10;

/** Every event of the session from now (or from `after`) until its run ends. */
export function followEvents(sessionId: string, options: FollowEventsOptions): AsyncGenerator<EventFrame> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const url = `${options.baseUrl.replace(/\/+$/, "")}/v1/sessions/${encodeURIComponent(sessionId)}/events`;
  return followStream(
    sessionId,
    async (cursor) => {
      const credential = typeof options.credential === "function" ? await options.credential() : options.credential;
      const headers: Record<string, string> = { Accept: "text/event-stream", Authorization: `Bearer ${credential}` };
      if (cursor !== null) headers["Last-Event-ID"] = String(cursor);
      const response = await fetchImpl(url, { headers, signal: options.signal });
      return { response, error: response.ok ? undefined : await response.json().catch(() => null) };
    },
    options,
  );
}

/** Opens the stream after `cursor` (null: from a snapshot); `error` is a failed answer's parsed body. */
export type OpenStream = (cursor: number | null) => Promise<{ response: Response; error?: unknown }>;

/** The reconnecting reader behind `followEvents` and `runSession`, over any way to open the stream. */
export async function* followStream(
  sessionId: string,
  open: OpenStream,
  options: Pick<FollowEventsOptions, "after" | "signal" | "reconnectDelayMs" | "maxReconnects" | "onReconnect"> & {
    /** Called after each successful open, before its first frame is read: the server watches from then on. */
    onOpen?: () => Promise<void>;
  },
): AsyncGenerator<EventFrame> {
  let lastId: number | null = options.after ?? null;
  let failures = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    let opened: { response: Response; error?: unknown };
    try {
      opened = await open(lastId);
    } catch (error) {
      if (options.signal?.aborted || ++failures > (options.maxReconnects ?? DEFAULT_MAX_RECONNECTS)) throw error;
      await sleep(options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS, options.signal);
      continue;
    }
    const { response } = opened;
    if (response.status === 204) return;
    if (!response.ok || !response.body) throw new PlatformError(response, opened.error ?? null);
    if (options.onOpen) {
      try {
        await options.onOpen();
      } catch (error) {
        response.body.cancel().catch(() => undefined);
        throw error;
      }
    }

    // The SSE `id:` is the cursor: stored events carry theirs, the snapshot the newest id it covers.
    const frames: { frame: EventFrame; id: string | undefined }[] = [];
    const parser = createParser({ onEvent: (event) => frames.push({ frame: JSON.parse(event.data) as EventFrame, id: event.id }) });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<string>;
        try {
          chunk = await reader.read();
        } catch {
          break; // the connection dropped: resume from the last id
        }
        if (chunk.done) break;
        parser.feed(chunk.value);
        for (const { frame, id } of frames.splice(0)) {
          if (id !== undefined && /^\d+$/.test(id)) lastId = Number(id);
          failures = 0;
          yield frame;
          if (frame.type === "end") return;
        }
      }
    } finally {
      reader.cancel().catch(() => undefined);
    }
    if (options.signal?.aborted || ++failures > (options.maxReconnects ?? DEFAULT_MAX_RECONNECTS)) {
      options.signal?.throwIfAborted();
      throw new Error(`the events stream of ${sessionId} kept dropping`);
    }
    await sleep(options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS, options.signal);
    options.onReconnect?.();
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * The answer being written, from the `delta` and `delta_reset` events of `followEvents` or a
 * run's `onEvent`: each block's text so far, by index. A `delta_reset` (the call writing it
 * failed; a retry writes anew) drops the blocks it names; the saved answer (a `message` event of
 * the assistant), a `snapshot` (a new connection: deltas are never replayed, and an attempt that
 * died with a restart sends no reset) and the end of the run clear it all. After resuming with
 * `Last-Event-ID` (no snapshot), call `clear()`.
 */
export class AnswerDraft {
  #blocks: { text: string; reasoning: boolean }[] = [];

  /** Takes one event; whether the draft changed. */
  apply(frame: EventFrame): boolean {
    switch (frame.type) {
      case "delta": {
        const { index, text, offset, kind } = frame.data;
        const held = this.#blocks[index]?.text ?? "";
        this.#blocks[index] = { text: held.slice(0, offset) + text, reasoning: kind === "reasoning" };
        return true;
      }
      case "delta_reset":
        for (const index of frame.data.indices) delete this.#blocks[index];
        return true;
      case "message":
        if (frame.data.role !== "assistant") return false;
        this.#blocks = [];
        return true;
      case "snapshot":
      case "end":
        this.#blocks = [];
        return true;
      default:
        return false;
    }
  }

  /** Drops every draft: on a new connection that resumed without a snapshot. */
  clear(): void {
    this.#blocks = [];
  }

  /** The answer's text so far (its reasoning left out), blocks in order. */
  get text(): string {
    return this.#blocks.flatMap((block) => (block && !block.reasoning ? [block.text] : [])).join("");
  }

  /** The model's reasoning so far, blocks in order. */
  get reasoning(): string {
    return this.#blocks.flatMap((block) => (block?.reasoning ? [block.text] : [])).join("");
  }
}
