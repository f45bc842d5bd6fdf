/**
 * A small client of the public API (API.md) for one principal. Its typed calls go through the
 * generated SDK (sdk/), so a change of the spec that breaks clients breaks this suite; `request`
 * stays for the raw calls a test makes on purpose. It reads the platform's URL on every call,
 * because each restart listens on a new port.
 */
import { allPages, createPlatformClient, expectData, type PlatformClient } from "../../../sdk/src/index.ts";
import type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/sessions/types";

export type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/sessions/types";

/** One request may not hang a test; the platform answers control requests in milliseconds. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The contract's largest page. */
const PAGE_LIMIT = 200;

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
  /** The raw text, for failure messages. */
  text: string;
}

export interface CreateSessionBody {
  input?: string;
  system?: string;
  model?: string;
  tools?: ToolSpec[];
  limits?: Record<string, number | null>;
  context?: { strategy: "auto" | "last_messages" | "summary"; max_input_tokens?: number; last_messages?: number };
  metadata?: Record<string, string>;
}

export interface SessionSummary {
  id: string;
  status: SessionStatus;
  created_by?: string;
  tenant_id?: string;
}

/** Whether `err` is fetch's failure on a connection the other side closed, before its answer or within it. */
function closedConnection(err: unknown): boolean {
  const cause = err instanceof Error ? (err.cause as { code?: string } | undefined) : undefined;
  return err instanceof TypeError && (cause?.code === "UND_ERR_SOCKET" || cause?.code === "ECONNRESET");
}

export class ApiClient {
  /** The status of every response this client received, in order. */
  readonly statuses: number[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const send = async () => {
      const res = await fetch(`${this.baseUrl()}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      return { res, text: await res.text() };
    };
    let answer: { res: Response; text: string };
    try {
      answer = await send();
    } catch (err) {
      // The connection closed under the request, before its answer or in the middle of it (seen
      // from `wrangler dev` under the whole suite's load): sent again once where that is safe, as
      // any client would: a read, or a write with its idempotency key, which the platform answers
      // with the first answer. Anything else fails the test.
      const safe = method === "GET" || method === "HEAD" || Object.keys(headers).some((name) => name.toLowerCase() === "idempotency-key");
      if (!safe || !closedConnection(err)) throw err;
      console.log(`${method} ${path}: the connection closed (${String((err as Error).cause)}); sent again`);
      answer = await send();
    }
    const { res, text } = answer;
    this.statuses.push(res.status);
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** Like `request`, but any status other than `expected` is a failure that shows the body. */
  async expect<T>(expected: number, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
    const res = await this.request<T>(method, path, body, headers);
    if (res.status !== expected) throw new Error(`${method} ${path}: expected ${expected}, got ${res.status}: ${res.text}`);
    return res.body;
  }

  /** The SDK's client for the platform as it listens now, counting each status like `request`. */
  sdk(): PlatformClient {
    const client = createPlatformClient({
      baseUrl: this.baseUrl(),
      credential: this.token,
      fetch: (input) => fetch(input, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) }),
    });
    client.use({ onResponse: ({ response }) => void this.statuses.push(response.status) });
    return client;
  }

  async createSession(body: CreateSessionBody): Promise<Session> {
    const created = await expectData(
      this.sdk().POST("/v1/sessions", { body, params: { header: { "idempotency-key": crypto.randomUUID() } } }),
    );
    return created as unknown as Session;
  }

  async getSession(id: string): Promise<Session> {
    return (await expectData(this.sdk().GET("/v1/sessions/{id}", { params: { path: { id } } }))) as unknown as Session;
  }

  async cancel(id: string): Promise<Session> {
    return (await expectData(this.sdk().POST("/v1/sessions/{id}/cancel", { params: { path: { id } } }))) as unknown as Session;
  }

  async toolCalls(id: string): Promise<ToolCall[]> {
    const sdk = this.sdk();
    const calls = await allPages((cursor) => sdk.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } } }));
    return calls as unknown as ToolCall[];
  }

  async messages(id: string): Promise<Message[]> {
    const sdk = this.sdk();
    const messages = await allPages((cursor) => sdk.GET("/v1/sessions/{id}/messages", { params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } } }));
    return messages as unknown as Message[];
  }

  async listSessions(query: { status?: SessionStatus; created_by?: string } = {}): Promise<SessionSummary[]> {
    const sdk = this.sdk();
    return allPages((cursor) => sdk.GET("/v1/sessions", { params: { query: { ...query, limit: PAGE_LIMIT, cursor } } }));
  }
}
