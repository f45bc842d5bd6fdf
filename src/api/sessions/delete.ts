/**
 * `DELETE /v1/sessions/{id}`: cancels whatever runs and erases the session: the Agent's
 * storage first, then the index row, so a failure in between leaves a listed session that a
 * retry can still find and erase, never a hidden one that keeps running.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../objects";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { canAccessSession, loadOwnedSession } from "../../sessions/access";
import { isSessionId } from "../../sessions/ids";
import { SessionIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "delete",
  path: "/v1/sessions/{id}",
  operationId: "deleteSession",
  summary: "Delete a session",
  description: "Cancels a run that is going, then erases the session's history, tool calls and index entry.",
  tags: ["Sessions"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: SessionIdParamsSchema },
  responses: {
    204: { description: "Erased." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  const principal = c.var.principal;
  const index = tenantIndexStub(c.env, principal.tenantId);
  let owned;
  try {
    owned = await loadOwnedSession(c.env, principal, id);
  } catch (error) {
    // A retry after an erase whose index cleanup failed: the Agent is gone, the row is not.
    const row = error instanceof ApiError && error.code === "not_found" && isSessionId(id) ? await index.getSessionSummary(principal.tenantId, id) : null;
    if (!row || !canAccessSession(principal, { tenant_id: principal.tenantId, created_by: row.created_by })) throw error;
    await index.removeSession(principal.tenantId, id);
    return c.body(null, 204);
  }
  await owned.agent.erase();
  await index.removeSession(principal.tenantId, id);
  return c.body(null, 204);
};
