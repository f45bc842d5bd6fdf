/** `GET /v1/agents/{agent_id}`: the agent at its latest version, with its aliases. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedAgent } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentIdParamsSchema, AgentSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}",
  operationId: "getAgent",
  summary: "Get an agent",
  tags: ["Agents"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: AgentIdParamsSchema },
  responses: {
    200: jsonContent(AgentSchema, "The agent."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownAgentId(c.req.valid("param").agent_id);
  return c.json(maskedAgent(await new AgentClient(c.env, c.var.principal.tenantId).get(id)), 200);
};
