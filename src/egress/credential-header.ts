/**
 * The one rule for where a vault credential goes: as its header, on a request whose origin is in
 * its `allowedOrigins`, replacing any header of that name the caller set; never elsewhere. The
 * guarded fetch and the MCP transport's fetch both apply it to every request they send.
 */
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./call-signature";
import type { EgressCredential } from "./credentials";
import { FRAMING_HEADERS } from "./framing-headers";

/**
 * Headers a credential may not fill, refused when it is put and never set when it is sent: the
 * request's framing, what the protocols set themselves (content negotiation, MCP's session), and
 * what the platform sets on a tool's call (its signature, timestamp, idempotency key, trace).
 */
export const FORBIDDEN_CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(
  [
    ...FRAMING_HEADERS,
    "content-type",
    "accept",
    "cookie",
    "traceparent",
    "mcp-session-id",
    "mcp-protocol-version",
    IDEMPOTENCY_HEADER,
    TIMESTAMP_HEADER,
    SIGNATURE_HEADER,
  ].map((name) => name.toLowerCase()),
);

export type CredentialHeaders = { ok: true; headers: Headers; carried: boolean } | { ok: false; detail: string };

/** Whether `credential` may go to `url`'s origin. */
export function credentialAllowed(credential: EgressCredential, url: URL): boolean {
  return credential.allowedOrigins.includes(url.origin);
}

/**
 * The headers of one request: `headers` as given, with the credential's header set when it may go
 * to `url`. A header value that cannot be sent fails without echoing it (the error names the
 * credential, never its value).
 */
export function credentialHeaders(headers: Headers, credential: EgressCredential | undefined, url: URL): CredentialHeaders {
  if (!credential || !credentialAllowed(credential, url)) return { ok: true, headers, carried: false };
  const name = credential.header.toLowerCase();
  if (FORBIDDEN_CREDENTIAL_HEADERS.has(name))
    return { ok: false, detail: `the credential "${credential.name}" names the header ${name}, which the platform sets` };
  const out = new Headers(headers);
  try {
    out.set(name, credential.value);
  } catch {
    return { ok: false, detail: `the credential "${credential.name}" is not a valid value for the header ${name}` };
  }
  return { ok: true, headers: out, carried: true };
}
