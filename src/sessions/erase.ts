/**
 * Erasing a session: whatever runs is cancelled, then the session object's storage goes first and the
 * index row second, so a failure in between leaves a listed session that a retry can still find
 * and erase, never a hidden one that keeps running.
 */
import { tenantIndexStub } from "../objects";
import { ApiError } from "../problems";
import type { Actor } from "./actor";
import { canAccessSession, loadOwnedSession } from "./access";
import { isSessionId } from "./ids";

export async function eraseSession(actor: Actor, sessionId: string): Promise<void> {
  const { env, principal } = actor;
  const index = tenantIndexStub(env, principal.tenantId);
  let owned;
  try {
    owned = await loadOwnedSession(env, principal, sessionId);
  } catch (error) {
    // A retry after an erase whose index cleanup failed: the session object is gone, the row is not.
    const row = error instanceof ApiError && error.code === "not_found" && isSessionId(sessionId) ? await index.getSessionSummary(principal.tenantId, sessionId) : null;
    if (!row || !canAccessSession(principal, { tenant_id: principal.tenantId, created_by: row.created_by })) throw error;
    await index.removeSession(principal.tenantId, sessionId);
    return;
  }
  await owned.agent.erase();
  await index.removeSession(principal.tenantId, sessionId);
}
