/**
 * The MCP connections of one unit of work, one per server, opened on first use and all closed
 * when the unit ends. The server's URL is checked again here (the guard, and the tenant's
 * allowed origins as they are now), since a session's tools outlive changes to both.
 */
import type { McpToolSpec } from "../../../../session-config/types";
import { McpConnection } from "./connection";
import { McpRefusal } from "./mcp-fetch";
import { checkMcpServerUrl } from "./server-url";
import { checkAllowedTenantUrl } from "../../../../egress/tenant-url";
import type { CredentialSource } from "../../../../egress/credentials";
import { NO_VAULT } from "../../../../egress/credential-fetch";

export interface McpPoolOptions {
  allowPrivateUrls: boolean;
  /** The tenant's allowed origins, asked once per unit when a server is first used. */
  allowedOrigins: () => Promise<readonly string[] | null>;
  fetchImpl?: typeof fetch;
  /** The `traceparent` of the span a request is made under (the unit's, or the tool call's going on). */
  traceparent?: () => string | undefined;
  /** The session's vault credentials, for a server whose `auth` names one. */
  credentials?: CredentialSource;
}

export class McpConnections {
  readonly #open = new Map<string, Promise<McpConnection>>();
  #origins: Promise<readonly string[] | null> | null = null;

  constructor(private readonly options: McpPoolOptions) {}

  async get(spec: McpToolSpec, signal: AbortSignal): Promise<McpConnection> {
    const open = this.#open.get(spec.name);
    if (open) {
      const connection = await open.catch(() => null);
      if (connection && !connection.broken) return connection;
      this.#open.delete(spec.name);
    }
    const opening = this.#connect(spec, signal);
    this.#open.set(spec.name, opening);
    opening.catch(() => this.#open.delete(spec.name));
    return opening;
  }

  /** Forgets a server's connection after a failure, so the next try opens a new one. */
  drop(spec: McpToolSpec): void {
    const open = this.#open.get(spec.name);
    this.#open.delete(spec.name);
    void open?.then((connection) => connection.close()).catch(() => undefined);
  }

  async closeAll(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(open.map((opening) => opening.then((connection) => connection.close()).catch(() => undefined)));
  }

  async #connect(spec: McpToolSpec, signal: AbortSignal): Promise<McpConnection> {
    this.#origins ??= this.options.allowedOrigins();
    const allowedOrigins = await this.#origins;
    const check = checkAllowedTenantUrl(
      spec.url,
      { allowPrivateUrls: this.options.allowPrivateUrls, origins: allowedOrigins },
      checkMcpServerUrl,
    );
    if (!check.ok) throw new McpRefusal(check.message);
    return McpConnection.open(
      {
        spec,
        url: check.url,
        allowPrivateUrls: this.options.allowPrivateUrls,
        allowedOrigins,
        fetchImpl: this.options.fetchImpl,
        traceparent: this.options.traceparent,
        // A session without a vault reads every credential as unavailable.
        ...(spec.auth ? { auth: { name: spec.auth.credential, source: this.options.credentials ?? NO_VAULT } } : {}),
      },
      signal,
    );
  }
}
