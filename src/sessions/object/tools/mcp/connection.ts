/**
 * One connection to one MCP server, with the official SDK's client over Streamable HTTP: the
 * platform's guarded fetch (mcp-fetch.ts) and its JSON Schema validator (validator.ts) are
 * plugged in, and a stream that breaks before its answer fails the request at once instead of
 * leaving it to its timeout.
 *
 * A connection lives for one unit of work (the discovery at a run's start, or one response's
 * tool calls) and is closed at its end. Nothing of it is kept across units: the session object may be
 * evicted or restarted between alarms, so each unit starts a new MCP session (`initialize`),
 * and a server is expected to keep no state a tool call depends on in its MCP session.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpToolSpec } from "../../../../session-config/types";
import { loadMcpSdk } from "./load-sdk";
import { mcpFetch } from "./mcp-fetch";
import type { CredentialAuth } from "../../../../egress/credential-fetch";
import type { ListedTool } from "./plan";
import { PlatformJsonSchemaValidator } from "../../../../shared/json-schema/mcp-validator";

/** `initialize` and its answer. */
export const MCP_CONNECT_TIMEOUT_MS = 15_000;
/** One `tools/list` page. */
export const MCP_LIST_TIMEOUT_MS = 15_000;
/** Pages of `tools/list` read, and entries kept: a server listing more is narrowed with `allowed_tools`. */
export const MAX_LIST_PAGES = 10;
export const MAX_LISTED_TOOLS = 1_000;
/** A DELETE that ends the MCP session is a courtesy; it is not waited for longer. */
const CLOSE_TIMEOUT_MS = 2_000;

const CLIENT_INFO = { name: "agent-platform", version: "1.0.0" };

export interface McpTarget {
  spec: McpToolSpec;
  /** The server's URL, already checked. */
  url: URL;
  allowPrivateUrls: boolean;
  allowedOrigins: readonly string[] | null;
  fetchImpl?: typeof fetch;
  /** The `traceparent` to send with each request, as it is at the time of the request. */
  traceparent?: () => string | undefined;
  /** The vault credential the server's `auth` names. */
  auth?: CredentialAuth;
}

export class McpConnection {
  readonly #client: Client;
  readonly #transport: StreamableHTTPClientTransport;
  /** Aborted when the transport fails: every request still waiting fails with it. */
  readonly #broken = new AbortController();

  private constructor(client: Client, transport: StreamableHTTPClientTransport) {
    this.#client = client;
    this.#transport = transport;
  }

  static async open(target: McpTarget, signal: AbortSignal): Promise<McpConnection> {
    const { Client, StreamableHTTPClientTransport } = await loadMcpSdk();
    const transport = new StreamableHTTPClientTransport(target.url, {
      fetch: mcpFetch({
        server: target.url,
        allowPrivateUrls: target.allowPrivateUrls,
        allowedOrigins: target.allowedOrigins,
        fetchImpl: target.fetchImpl,
        traceparent: target.traceparent,
        ...(target.auth ? { auth: target.auth } : {}),
      }),
      requestInit: { headers: { ...target.spec.headers } },
      // A broken answer stream is not resumed: the request fails and the unit's rules decide.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1_000, maxReconnectionDelay: 1_000, reconnectionDelayGrowFactor: 1 },
    });
    const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: new PlatformJsonSchemaValidator() });
    const connection = new McpConnection(client, transport);
    // Set before connecting, so only the transport's own failures reach it (the SDK chains it).
    transport.onerror = (error) => connection.#broken.abort(error);
    await connection.#failing(client.connect(transport, { signal: connection.#signal(signal), timeout: MCP_CONNECT_TIMEOUT_MS }));
    return connection;
  }

  /** The transport failed: the connection cannot be used again. */
  get broken(): boolean {
    return this.#broken.signal.aborted;
  }

  /** Every tool the server lists, following its pages up to the caps. */
  async listTools(signal: AbortSignal): Promise<ListedTool[]> {
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES && tools.length < MAX_LISTED_TOOLS; page++) {
      const result = await this.#failing(
        this.#client.listTools(cursor === undefined ? undefined : { cursor }, {
          signal: this.#signal(signal),
          timeout: MCP_LIST_TIMEOUT_MS,
        }),
      );
      tools.push(...(result.tools as ListedTool[]));
      cursor = result.nextCursor;
      if (cursor === undefined) break;
    }
    return tools.slice(0, MAX_LISTED_TOOLS);
  }

  async callTool(name: string, args: Record<string, unknown>, signal: AbortSignal, timeoutMs: number): Promise<CallToolResult> {
    return (await this.#failing(
      this.#client.callTool({ name, arguments: args }, undefined, { signal: this.#signal(signal), timeout: timeoutMs }),
    )) as CallToolResult;
  }

  /** Ends the MCP session (DELETE) if the server keeps one, then the transport. Never throws. */
  async close(): Promise<void> {
    const ended = this.#transport.terminateSession().catch(() => undefined);
    await Promise.race([ended, scheduler.wait(CLOSE_TIMEOUT_MS)]);
    await this.#client.close().catch(() => undefined);
  }

  /**
   * The SDK turns an abort into a timeout error; when the transport failed, its own error (an
   * HTTP status, a broken stream) says better what happened.
   */
  async #failing<T>(request: Promise<T>): Promise<T> {
    try {
      return await request;
    } catch (error) {
      throw this.#broken.signal.aborted ? this.#broken.signal.reason : error;
    }
  }

  #signal(signal: AbortSignal): AbortSignal {
    return AbortSignal.any([signal, this.#broken.signal]);
  }
}
