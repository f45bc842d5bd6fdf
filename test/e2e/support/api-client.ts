/**
 * A small client of the public API (API.md) for one principal. It reads the platform's URL on
 * every call, because each restart listens on a new port.
 */
import type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/agents/types";

export type { Message, Session, SessionStatus, ToolCall, ToolSpec } from "../../../src/agents/types";

/** One request may not hang a test; the platform answers control requests in milliseconds. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The contract's largest page. */
const PAGE_LIMIT = 200;
/** A list longer than this many pages is a bug in paging, not a big list. */
const MAX_PAGES = 100;

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

interface ListPage<T> {
  data: T[];
  next_cursor: string | null;
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

  createSession(body: CreateSessionBody): Promise<Session> {
    return this.expect<Session>(201, "POST", "/v1/sessions", body, { "idempotency-key": crypto.randomUUID() });
  }

  getSession(id: string): Promise<Session> {
    return this.expect<Session>(200, "GET", `/v1/sessions/${encodeURIComponent(id)}`);
  }

  cancel(id: string): Promise<Session> {
    return this.expect<Session>(200, "POST", `/v1/sessions/${encodeURIComponent(id)}/cancel`, {});
  }

  toolCalls(id: string): Promise<ToolCall[]> {
    return this.allPages<ToolCall>(`/v1/sessions/${encodeURIComponent(id)}/tool-calls`);
  }

  messages(id: string): Promise<Message[]> {
    return this.allPages<Message>(`/v1/sessions/${encodeURIComponent(id)}/messages`);
  }

  listSessions(query: Record<string, string> = {}): Promise<SessionSummary[]> {
    const search = new URLSearchParams(query).toString();
    return this.allPages<SessionSummary>(`/v1/sessions${search ? `?${search}` : ""}`);
  }

  /** Follows `next_cursor` to the end. A bare array (no paging) is accepted as one page. */
  private async allPages<T>(path: string): Promise<T[]> {
    const out: T[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < MAX_PAGES; page++) {
      const sep = path.includes("?") ? "&" : "?";
      const url: string = `${path}${sep}limit=${PAGE_LIMIT}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const body: ListPage<T> | T[] = await this.expect<ListPage<T> | T[]>(200, "GET", url);
      if (Array.isArray(body)) return body;
      out.push(...body.data);
      if (body.next_cursor === null) return out;
      cursor = body.next_cursor;
    }
    throw new Error(`${path}: more than ${MAX_PAGES} pages`);
  }
}
