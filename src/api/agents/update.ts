/**
 * `PATCH /v1/agents/{agent_id}`: a new version from the latest with the given fields replaced
 * (null clears one). The whole result is checked as a new definition; a change that changes
 * nothing makes no version. Versions are immutable: this never edits one.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { checkDefinition } from "../../sessions/agent-definition-check";
import { AgentClient, agentProblem, maskedAgent } from "../../agents/client";
import { requireAgentTools } from "../../sessions/agent-tools";
import { requireValidDefinitionPolicy } from "../../sessions/policy-check";
import type { ToolSpec } from "../../session-config/types";
import { applyPatch } from "../../agents/definition";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentIdParamsSchema, AgentPatchSchema, AgentSchema } from "./schemas";
import { auditContext } from "../audit-context";

/** Tries when another version lands between the read and the write; then 409. */
const MAX_PATCH_TRIES = 3;

export const route = createRoute({
  method: "patch",
  path: "/v1/agents/{agent_id}",
  operationId: "updateAgent",
  summary: "Change an agent (a new version)",
  description:
    "Each given field replaces the latest version's; null clears a nullable one. The result is checked as a whole, like a new agent. " +
    "Nothing changed: 200 with the same version. An MCP header given as `********` keeps the value the latest version has. 409 for an " +
    "archived agent or a name another live agent has.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: {
    params: AgentIdParamsSchema,
    body: jsonBody(AgentPatchSchema, { system: "You are a support agent for Acme. Be brief and kind." }),
  },
  responses: {
    200: jsonContent(AgentSchema, "The agent at its new (or unchanged) latest version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownAgentId(c.req.valid("param").agent_id);
  const patch = c.req.valid("json");
  const actor = actorOf(c);
  const agents = new AgentClient(c.env, actor.principal.tenantId);
  for (let tries = 1; ; tries++) {
    const current = await agents.get(id);
    // Before the definition is checked: an archived agent's PATCH is a 409 whatever it holds.
    if (current.archived) throw agentProblem({ reason: "archived" });
    const definition = checkDefinition(actor, applyPatch(current.definition, patch), current.definition);
    await requireValidDefinitionPolicy(definition);
    await requireAgentTools(c.env, actor.principal.tenantId, (definition.tools ?? []) as ToolSpec[]);
    const agent = await agents.addVersion(
      id,
      { definition, basedOn: current.version, createdBy: actor.principal.subject, now: Date.now() },
      auditContext(c),
    );
    if (agent !== "moved") return c.json(maskedAgent(agent), 200);
    if (tries >= MAX_PATCH_TRIES)
      throw new ApiError("conflict", "The agent kept changing while this request was made; read it and try again.");
  }
};
