/**
 * Who may see and control a session. The session object is always addressed with the principal's own
 * tenant, so another tenant's session id names an empty object and is simply not found; within
 * a tenant, a principal without tenant:admin reaches only the sessions it created. Every
 * failure is the same 404, so a caller cannot tell "not yours" from "does not exist".
 */
import type { Session } from "../session-config/types";
import { seesAllTenantSessions, type Principal } from "../auth/principal";
import type { Env } from "../env";
import { ApiError } from "../problems";
import { SessionClient, SESSION_NOT_FOUND, TOOL_CALL_NOT_FOUND } from "./client";
import { isSessionId, isToolCallId } from "../session-config/ids";
import { mayAccess, type SessionViewer } from "./viewer";

export { SESSION_NOT_FOUND, TOOL_CALL_NOT_FOUND };

export interface OwnedSession {
  session: Session;
  client: SessionClient;
}

/** The principal as the access rule (viewer.ts) sees it. */
export function viewerOf(principal: Principal): SessionViewer {
  return { tenantId: principal.tenantId, subject: principal.subject, seesAll: seesAllTenantSessions(principal) };
}

/** Pure: whether `principal` may see `session`. */
export function canAccessSession(principal: Principal, session: Pick<Session, "tenant_id" | "created_by">): boolean {
  return mayAccess(viewerOf(principal), session);
}

/**
 * A session object's client for a decision on one of its tool calls: the id checked here, the
 * access rule applied by the object itself with the decision, so the session is not read first.
 */
export function decidingClient(env: Env, principal: Principal, sessionId: string): SessionClient {
  if (!isSessionId(sessionId)) throw new ApiError("not_found", SESSION_NOT_FOUND);
  return new SessionClient(env, principal.tenantId, sessionId);
}

/** The session and its session object, or a 404 for a malformed id, a missing session or someone else's. */
export async function loadOwnedSession(env: Env, principal: Principal, sessionId: string): Promise<OwnedSession> {
  if (!isSessionId(sessionId)) throw new ApiError("not_found", SESSION_NOT_FOUND);
  const client = new SessionClient(env, principal.tenantId, sessionId);
  const session = await client.find();
  if (!session || !canAccessSession(principal, session)) throw new ApiError("not_found", SESSION_NOT_FOUND);
  return { session, client };
}

/** A malformed tool-call id is answered like an unknown one, before any lookup. */
export function requireToolCallId(callId: string): string {
  if (!isToolCallId(callId)) throw new ApiError("not_found", TOOL_CALL_NOT_FOUND);
  return callId;
}

export type ListFilter = { visible: true; createdBy: string | null } | { visible: false };

/**
 * Pure: the `created_by` filter a listing runs with. Without tenant:admin the filter is always
 * the caller's own subject; asking for another subject's sessions is not an error but an empty
 * list, the same answer as for a subject with no sessions, so subjects cannot be probed.
 */
export function listFilterFor(principal: Principal, requested: string | undefined): ListFilter {
  if (seesAllTenantSessions(principal)) return { visible: true, createdBy: requested ?? null };
  if (requested !== undefined && requested !== principal.subject) return { visible: false };
  return { visible: true, createdBy: principal.subject };
}
