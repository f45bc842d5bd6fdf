/**
 * Who may see and control a session, as a rule both sides apply: the gateway before it reads a
 * session, and the session object when a decision carries its caller, so a decision on a tool
 * call is one call to the object rather than a read and then the decision.
 */
import type { Session } from "../session-config/types";

/** The caller as the rule needs it: its tenant, its subject, and whether it sees every session of the tenant. */
export interface SessionViewer {
  tenantId: string;
  subject: string;
  seesAll: boolean;
}

/** Pure: whether `viewer` may see `session`. The tenant check is defence in depth. */
export function mayAccess(viewer: SessionViewer, session: Pick<Session, "tenant_id" | "created_by">): boolean {
  if (session.tenant_id !== viewer.tenantId) return false;
  return viewer.seesAll || session.created_by === viewer.subject;
}
