/** `DELETE /v1/agents/{agent_id}`: archives the agent. No new session starts from it; those running go on, and its versions stay readable. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentIdParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/agents/{agent_id}",
  operationId: "archiveAgent",
  summary: "Archive an agent",
  description:
    "Sessions from it are then refused (409), schedules that name it fail at their firings; running sessions go on. Its name is free again. Repeating it is harmless.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: AgentIdParamsSchema },
  responses: {
    204: { description: "Archived." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  await new AgentClient(c.env, c.var.principal.tenantId).archive(knownAgentId(c.req.valid("param").agent_id), Date.now(), auditContext(c));
  return c.body(null, 204);
};
