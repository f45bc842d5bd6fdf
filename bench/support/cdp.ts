/**
 * A small Chrome DevTools protocol client over Node's global WebSocket, for the V8 inspector
 * that `wrangler dev --inspector-port` exposes (one target: the Worker's isolate, which also
 * runs its Durable Objects).
 */

/** A command the inspector leaves unanswered this long is a hung inspector, not a slow one. */
const COMMAND_TIMEOUT_MS = 60_000;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

type Listener = (params: Record<string, unknown>) => void;

export class DevToolsSession {
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Map<string, Set<Listener>>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener("message", (event) => this.#onMessage(String(event.data)));
    socket.addEventListener("close", () => this.#failAll(new Error("the inspector closed the connection")));
  }

  /** Connects to the first target listed by the inspector at `httpUrl` (`http://host:port`). */
  static async connect(httpUrl: string): Promise<DevToolsSession> {
    const targets = (await (await fetch(`${httpUrl}/json`)).json()) as { webSocketDebuggerUrl?: string }[];
    const url = targets[0]?.webSocketDebuggerUrl;
    if (!url) throw new Error(`no inspector target at ${httpUrl}`);
    // Wrangler's inspector proxy refuses a client that names no local Origin. Node's WebSocket
    // (undici) takes headers as an extension of the standard constructor.
    const init = { headers: { origin: "http://127.0.0.1" } } as unknown as string[];
    const socket = new WebSocket(url, init);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`could not connect to ${url}`)), { once: true });
    });
    return new DevToolsSession(socket);
  }

  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`${method}: no answer after ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.#pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Calls `listener` with the params of every `method` event; returns a function that stops it. */
  on(method: string, listener: Listener): () => void {
    let set = this.#listeners.get(method);
    if (!set) this.#listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  close(): void {
    this.socket.close();
  }

  #onMessage(text: string): void {
    const message = JSON.parse(text) as {
      id?: number;
      method?: string;
      params?: Record<string, unknown>;
      result?: unknown;
      error?: { message: string };
    };
    if (message.id === undefined) {
      for (const listener of this.#listeners.get(message.method ?? "") ?? []) listener(message.params ?? {});
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new Error(`${message.error.message}`));
    else pending.resolve(message.result);
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.#pending.clear();
  }
}
