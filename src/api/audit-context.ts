/** Who made a change, as the audit log records it: the request's principal, its id and the client's address. */
import type { AuditContext } from "../audit/types";
import type { AppContext } from "./context";

export function auditContext(c: AppContext): AuditContext {
  const { subject, via, keyId } = c.var.principal;
  return {
    actor: { sub: subject, via, key_id: keyId ?? null },
    request_id: c.var.requestId,
    // Set by Cloudflare's edge on every request from the internet (a client's own value is replaced).
    client_ip: c.req.header("CF-Connecting-IP") ?? null,
  };
}
