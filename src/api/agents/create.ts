/** `POST /v1/agents`: a definition becomes an agent at version 1. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { checkDefinition } from "../../sessions/agent-definition-check";
import { requireAgentTools } from "../../sessions/agent-tools";
import { requireValidDefinitionPolicy } from "../../sessions/policy-check";
import type { ToolSpec } from "../../session-config/types";
import { AgentClient, maskedAgent } from "../../agents/client";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { AgentDefinitionSchema, AgentSchema, CREATE_AGENT_EXAMPLE } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "post",
  path: "/v1/agents",
  operationId: "createAgent",
  summary: "Create an agent",
  description:
    "The definition is checked as a session's create body would be (400 with the same `errors` paths). 409 when another live agent has " +
    "the name. A version's `definition`, exported from any tenant, is a valid body here.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write"), idempotent()] as const,
  request: { headers: IdempotencyHeadersSchema, body: jsonBody(AgentDefinitionSchema, CREATE_AGENT_EXAMPLE) },
  responses: {
    201: {
      description: "The new agent, at version 1.",
      headers: headerRefs("Location"),
      content: { "application/json": { schema: AgentSchema } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409, 422),
  },
});

export function agentPath(id: string): string {
  return `/v1/agents/${id}`;
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const actor = actorOf(c);
  const definition = checkDefinition(actor, c.req.valid("json"), null);
  await requireValidDefinitionPolicy(definition);
  await requireAgentTools(c.env, actor.principal.tenantId, (definition.tools ?? []) as ToolSpec[]);
  const agent = await new AgentClient(c.env, actor.principal.tenantId).create(
    { definition, createdBy: actor.principal.subject, now: Date.now() },
    auditContext(c),
  );
  c.header("Location", agentPath(agent.id));
  return c.json(maskedAgent(agent), 201);
};
