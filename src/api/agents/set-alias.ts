/** `PUT /v1/agents/{agent_id}/aliases/{alias}`: points the alias at a version; moving it back is the rollback. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedAgent } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentSchema, AliasParamsSchema, SetAliasRequestSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "put",
  path: "/v1/agents/{agent_id}/aliases/{alias}",
  operationId: "setAgentAlias",
  summary: "Point an alias at a version",
  description:
    "Sessions created with `agt_…@<alias>` from now on run that version; sessions already created keep theirs, and schedules naming " +
    "the alias follow it at their next firing. 404 for a version the agent does not have; 409 for an archived agent.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: { params: AliasParamsSchema, body: jsonBody(SetAliasRequestSchema, { version: 3 }) },
  responses: {
    200: jsonContent(AgentSchema, "The agent with its aliases."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, alias } = c.req.valid("param");
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).setAlias(
    knownAgentId(agent_id),
    alias,
    c.req.valid("json").version,
    Date.now(),
    auditContext(c),
  );
  return c.json(maskedAgent(agent), 200);
};
