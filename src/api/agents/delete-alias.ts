/** `DELETE /v1/agents/{agent_id}/aliases/{alias}`: sessions naming the alias are refused (404) from now on. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AliasParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/agents/{agent_id}/aliases/{alias}",
  operationId: "deleteAgentAlias",
  summary: "Delete an alias",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: AliasParamsSchema },
  responses: {
    204: { description: "Deleted." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 400, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, alias } = c.req.valid("param");
  await new AgentClient(c.env, c.var.principal.tenantId).deleteAlias(knownAgentId(agent_id), alias, Date.now(), auditContext(c));
  return c.body(null, 204);
};
