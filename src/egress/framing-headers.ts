/**
 * Headers no caller may set on an outgoing request: Host and the hop-by-hop and framing headers
 * would let a request reach a different virtual host than the guard checked, or desynchronise
 * the connection. The one list: a tenant's MCP headers are refused by it too.
 */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set([
  "host",
  "content-length",
  "transfer-encoding",
  "connection",
  "keep-alive",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "proxy-connection",
]);
