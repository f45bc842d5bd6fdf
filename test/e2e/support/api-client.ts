/**
 * A small client of the public API (API.md) for one principal. Its typed calls go through the
 * generated SDK (sdk/), so a change of the spec that breaks clients breaks this suite; `request`
 * stays for the raw calls a test makes on purpose. It reads the platform's URL on every call,
 * because each restart listens on a new port.
 */
import { allPages, createPlatformClient, expectData, type PlatformClient } from "../../../sdk/src/index.ts";
import type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/session-config/types";

export type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/session-config/types";

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
  /** An agent by id, `agt_…@version` or `agt_…@alias`. */
  agent?: string;
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

export class ApiClient {
  /** The status of every response this client received, in order. */
  readonly statuses: number[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
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
    this.statuses.push(res.status);
    const text = await res.text();
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
    const calls = await allPages((cursor) =>
      sdk.GET("/v1/sessions/{id}/tool-calls", { params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } } }),
    );
    return calls as unknown as ToolCall[];
  }

  async messages(id: string): Promise<Message[]> {
    const sdk = this.sdk();
    const messages = await allPages((cursor) =>
      sdk.GET("/v1/sessions/{id}/messages", { params: { path: { id }, query: { limit: PAGE_LIMIT, cursor } } }),
    );
    return messages as unknown as Message[];
  }

  async listSessions(query: { status?: SessionStatus; created_by?: string } = {}): Promise<SessionSummary[]> {
    const sdk = this.sdk();
    return allPages((cursor) => sdk.GET("/v1/sessions", { params: { query: { ...query, limit: PAGE_LIMIT, cursor } } }));
  }
}
