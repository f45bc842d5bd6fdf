/**
 * Erasing a session: whatever runs is cancelled, then the session object's storage goes first and the
 * index row second, so a failure in between leaves a listed session that a retry can still find
 * and erase, never a hidden one that keeps running. `DELETE /v1/sessions/{id}` and the retention
 * sweep (src/tenants/tenant-index/retention-sweep.ts, through src/lifecycle/session-eraser.ts) erase alike.
 */
import type { AuditContext } from "../audit/types";
import { tenantIndexStub } from "../objects";
import { ApiError } from "../problems";
import type { Actor } from "./actor";
import { canAccessSession, loadOwnedSession } from "./access";
import { isSessionId } from "../session-config/ids";
import { SessionClient } from "./client";
import type { Env } from "../env";

export async function eraseSession(actor: Actor, sessionId: string): Promise<void> {
  const { env, principal } = actor;
  const index = tenantIndexStub(env, principal.tenantId);
  let owned;
  try {
    owned = await loadOwnedSession(env, principal, sessionId);
  } catch (error) {
    // A retry after an erase whose index cleanup failed: the session object is gone, the row is not.
    const row =
      error instanceof ApiError && error.code === "not_found" && isSessionId(sessionId)
        ? await index.getSessionSummary(principal.tenantId, sessionId)
        : null;
    if (!row || !canAccessSession(principal, { tenant_id: principal.tenantId, created_by: row.created_by })) throw error;
    await index.removeSession(principal.tenantId, sessionId, actor.audit);
    return;
  }
  await eraseSessionTree(env, principal.tenantId, sessionId, owned.client, actor.audit);
}

/** The session, its index row, then its children. `by`: who the audit log names. */
export async function eraseSessionTree(
  env: Env,
  tenantId: string,
  sessionId: string,
  session: SessionClient = new SessionClient(env, tenantId, sessionId),
  by?: AuditContext,
): Promise<void> {
  await session.erase();
  await tenantIndexStub(env, tenantId).removeSession(tenantId, sessionId, by);
  await eraseChildren(env, tenantId, sessionId, 0, by);
}

/**
 * The child sessions the erased session's `agent` calls started, and theirs, erased in turn: each
 * found through the index by its parent, and its own children erased before its row goes, so a
 * failure midway leaves rows a retry of the same delete still finds.
 */
async function eraseChildren(env: Env, tenantId: string, parentId: string, depth: number, by: AuditContext | undefined): Promise<void> {
  // Deeper than any `max_agent_depth` allows: a loop in the data, not a tree.
  if (depth > MAX_ERASE_DEPTH) return;
  const index = tenantIndexStub(env, tenantId);
  for (;;) {
    const page = await index.listSessions(tenantId, { limit: CHILDREN_PAGE, parent_session_id: parentId });
    if (page.data.length === 0) return;
    for (const child of page.data) {
      await eraseChildren(env, tenantId, child.id, depth + 1, by);
      await new SessionClient(env, tenantId, child.id).erase().catch((error: unknown) => {
        if (!(error instanceof ApiError && error.code === "not_found")) throw error;
      });
      await index.removeSession(tenantId, child.id, by);
    }
  }
}

const CHILDREN_PAGE = 100;
/** Above the highest `max_agent_depth` a tenant can be given (10). */
const MAX_ERASE_DEPTH = 11;
