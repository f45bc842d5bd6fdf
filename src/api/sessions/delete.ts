/**
 * `DELETE /v1/sessions/{id}`: cancels whatever runs and erases the session: the Agent's
 * storage first, then the index row, so a failure in between leaves a listed session that a
 * retry can still find and erase, never a hidden one that keeps running.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { tenantIndexStub } from "../../agents/naming";
import type { AgentResult } from "../../agents/types";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "./access";
import { agentValue } from "./agent-result";
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
  const { tenantId } = c.var.principal;
  const { agent } = await loadOwnedSession(c.env, c.var.principal, id);
  agentValue((await agent.erase()) as AgentResult<null>);
  await tenantIndexStub(c.env, tenantId).removeSession(tenantId, id);
  return c.body(null, 204);
};
