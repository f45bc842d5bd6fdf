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
import { jsonContent, queryIntegerSchema } from "../schemas";
import { z } from "@hono/zod-openapi";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { MAX_VERSION } from "../../agents/refs";
import { AgentSchema, AliasParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

const PromoteQuerySchema = z.object({
  expected_version: queryIntegerSchema(1, MAX_VERSION)
    .optional()
    .openapi({
      param: { name: "expected_version", in: "query" },
      description:
        "Promote only a canary of this version: one replaced meanwhile (rolled back and set again, or set to another version) is a 409, not promoted unseen.",
      example: 2,
    }),
});

export const route = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/aliases/{alias}/promote",
  operationId: "promoteAgentCanary",
  summary: "Promote an alias's canary",
  description:
    "The alias names its canary's version from now on, for every new session, and carries no canary. 404 for an unknown agent or " +
    "alias; 409 when the alias carries no canary (none was set, or it was rolled back), when `expected_version` is given and the " +
    "live canary is of another version, or when the agent is archived.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: AliasParamsSchema, query: PromoteQuerySchema },
  responses: {
    200: jsonContent(AgentSchema, "The agent with its aliases."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, alias } = c.req.valid("param");
  const { expected_version } = c.req.valid("query");
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).promoteCanary(
    knownAgentId(agent_id),
    alias,
    Date.now(),
    auditContext(c),
    expected_version ?? null,
  );
  return c.json(maskedAgent(agent), 200);
};
