/**
 * Who made a change, as the audit log records it: the request's principal, the platform's id of
 * the request with the caller's own kept apart, and the client's address as the deployment
 * trusts it. Every audited change a request makes is handed this.
 */
import type { AuditContext } from "../audit/types";
import { clientAddress } from "./client-address";
import type { AppContext } from "./context";

export function auditContext(c: AppContext): AuditContext {
  const { subject, via, keyId } = c.var.principal;
  return {
    actor: { sub: subject, via, key_id: keyId ?? null },
    request_id: c.var.requestId,
    client_request_id: c.var.clientRequestId,
    client_ip: clientAddress(c),
  };
}
