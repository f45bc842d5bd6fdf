/** `GET /v1/agents/{agent_id}/a2a/.well-known/agent-card.json`: the agent's A2A agent card. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentCard } from "@a2a-js/sdk";
import { agentCard, legacyAgentCard, wantsLegacyCard } from "../../a2a/card";
import { AgentClient } from "../../agents/client";
import { knownAgentId } from "../agents/ids";
import { AgentIdParamsSchema } from "../agents/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/a2a/.well-known/agent-card.json",
  operationId: "getAgentA2aCard",
  summary: "An agent's A2A agent card",
  description:
    "The Agent2Agent card of the agent: its JSON-RPC endpoint `POST /v1/agents/{agent_id}/a2a` for protocol versions 1.0 and 0.3, " +
    "streaming and push notifications on, bearer authentication. With the header `A2A-Version: 1.0` (as `@a2a-js/sdk` 1.x's client sends) the card is A2A 1.0 JSON; " +
    "without it, or with a version below 1.0, it is 0.3's card (`url`, `preferredTransport`), as for a 0.3 client. Give its URL to `@a2a-js/sdk`'s `ClientFactory.createFromUrl`.",
  tags: ["A2A"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: AgentIdParamsSchema },
  responses: {
    200: {
      description: "The agent card.",
      content: { "application/json": { schema: { type: "object", description: "An A2A `AgentCard`.", additionalProperties: true } } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const agentId = knownAgentId(c.req.valid("param").agent_id);
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).get(agentId);
  const origin = new URL(c.req.url).origin;
  c.header("Vary", "A2A-Version");
  if (wantsLegacyCard(c.req.header("A2A-Version"))) return c.json(legacyAgentCard(agent, origin), 200) as never;
  return c.json(AgentCard.toJSON(agentCard(agent, origin)), 200) as never;
};
