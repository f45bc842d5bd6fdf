/**
 * `POST /v1/agents/{agent_id}/aliases/{alias}/promote`: the alias moves to its canary's version and
 * the canary goes. An action of its own rather than a PUT of the canary's version: it promotes the
 * canary that is live, so a canary rolled back meanwhile is a 409 and never promoted unseen.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedAgent } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentSchema, AliasParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/aliases/{alias}/promote",
  operationId: "promoteAgentCanary",
  summary: "Promote an alias's canary",
  description:
    "The alias names its canary's version from now on, for every new session, and carries no canary. 404 for an unknown agent or " +
    "alias; 409 when the alias carries no canary (none was set, or it was rolled back) or the agent is archived.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: AliasParamsSchema },
  responses: {
    200: jsonContent(AgentSchema, "The agent with its aliases."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, alias } = c.req.valid("param");
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).promoteCanary(
    knownAgentId(agent_id),
    alias,
    Date.now(),
    auditContext(c),
  );
  return c.json(maskedAgent(agent), 200);
};
