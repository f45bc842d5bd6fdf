/**
 * The `fetch` the MCP SDK's transport is given: every request it makes (the first, and each hop
 * of a redirect it follows) passes the URL guard, the tenant's allowed origins, and must stay on
 * the server's own origin; the runtime never follows a redirect by itself. Answers are read up
 * to a byte cap. A refused request rejects like a failed fetch, which the SDK reports as an error.
 *
 * A GET, which the transport sends to open a stream for messages the server starts (requests
 * for sampling or input, notifications), is answered here with 405, as a server without that
 * stream answers: the platform takes no requests from servers, and an open stream would keep
 * the session's object awake between its units.
 */
import { isOriginAllowed } from "../../../../egress/allowed-origins";
import { checkMcpServerUrl } from "./server-url";
import { credentialHeaders } from "../../../../egress/credential-header";
import { CredentialUnavailable, sendWithCredential, type CredentialAuth } from "../../../../egress/credential-fetch";

/** An answer larger than this (a tool list, a call's result) is cut off as an error. */
export const MCP_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export interface McpFetchOptions {
  /** The server's URL as declared (normalized): its origin is the only one requests may go to. */
  server: URL;
  allowPrivateUrls: boolean;
  /** The tenant's allowed origins; null when it has set none. */
  allowedOrigins: readonly string[] | null;
  maxResponseBytes?: number;
  fetchImpl?: typeof fetch;
  /** The `traceparent` of the span the request is made under, when the run is traced. */
  traceparent?: () => string | undefined;
  /**
   * The vault credential the server's `auth` names: added to each request the credential allows
   * (the server's origin must be in its `allowed_origins`), refreshed once after a 401.
   */
  auth?: CredentialAuth;
}

export class McpRefusal extends Error {
  override name = "McpRefusal";
}

export function mcpFetch(options: McpFetchOptions): typeof fetch {
  const fetchImpl = options.fetchImpl ?? ((input, init) => fetch(input, init));
  const maxBytes = options.maxResponseBytes ?? MCP_MAX_RESPONSE_BYTES;
  return async (input, init) => {
    const raw = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const check = checkMcpServerUrl(raw, { allowPrivateUrls: options.allowPrivateUrls });
    if (!check.ok) throw new McpRefusal(check.message);
    if (check.url.origin !== options.server.origin) {
      throw new McpRefusal(
        `a request to ${check.url.origin} was refused: an MCP server's requests stay on its own origin (${options.server.origin})`,
      );
    }
    if (!isOriginAllowed(check.url, options.allowedOrigins)) {
      throw new McpRefusal(`the origin ${check.url.origin} is not in the tenant's webhook_origins`);
    }
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    if (method === "GET") return new Response(null, { status: 405, statusText: "Method Not Allowed" });
    const traceparent = options.traceparent?.();
    const headers = new Headers(init?.headers);
    if (traceparent) headers.set("traceparent", traceparent);
    const attempt = await sendWithCredential(
      options.auth,
      async (credential) => {
        const sent = credentialHeaders(headers, credential, check.url);
        if (!sent.ok) throw new McpRefusal(sent.detail);
        const response = await fetchImpl(check.url.href, { ...init, headers: sent.headers, redirect: "manual" });
        return { response, status: response.status, credentialSent: sent.carried };
      },
      (answer) => answer,
      // The 401's body is never read: cancelled, it frees its connection before the resend.
      (answer) => answer.response.body?.cancel().catch(() => undefined) ?? Promise.resolve(),
    );
    if (!attempt.ok) throw new CredentialUnavailable(attempt);
    return capped(attempt.result.response, maxBytes);
  };
}

/** The same answer, with a body that errors once more than `maxBytes` have come. */
function capped(response: Response, maxBytes: number): Response {
  if (!response.body) return response;
  let received = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      received += chunk.byteLength;
      if (received > maxBytes) controller.error(new McpRefusal(`the MCP server's answer is larger than ${maxBytes} bytes`));
      else controller.enqueue(chunk);
    },
  });
  return new Response(response.body.pipeThrough(limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
