/** `PUT /v1/agents/{agent_id}/aliases/{alias}`: points the alias at a version, with or without a canary; moving it back is the rollback. */
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
    "the alias follow it at their next firing. With `canary`, a second version takes `percent` of the alias's new sessions and chats, " +
    "chosen by a stable hash of the caller (an end user: every session of theirs; anyone else: each chat or session), its runs scored " +
    "online and the canary removed at once when `rollback` is crossed; without `canary`, any canary the alias had goes. Setting the " +
    "same canary again keeps its counts. 404 for a version the agent does not have; 400 for a canary version the agent does not have or " +
    "equal to `version`; 409 for an archived agent.",
  tags: ["Agents"],
  security: bearerAuth("agents:write"),
  middleware: [requireScope("agents:write")] as const,
  request: {
    params: AliasParamsSchema,
    body: jsonBody(SetAliasRequestSchema, {
      version: 3,
      canary: { version: 4, percent: 10, rollback: { scorers: [{ type: "max_steps", max: 5 }], max_failure_rate: 0.2, min_runs: 20 } },
    }),
  },
  responses: {
    200: jsonContent(AgentSchema, "The agent with its aliases."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, alias } = c.req.valid("param");
  const body = c.req.valid("json");
  const canary = body.canary
    ? {
        version: body.canary.version,
        percent: body.canary.percent,
        rollback: body.canary.rollback
          ? {
              scorers: body.canary.rollback.scorers,
              min_score: body.canary.rollback.min_score ?? null,
              max_failure_rate: body.canary.rollback.max_failure_rate ?? null,
              min_runs: body.canary.rollback.min_runs,
            }
          : null,
      }
    : null;
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).setAlias(
    knownAgentId(agent_id),
    alias,
    body.version,
    Date.now(),
    auditContext(c),
    canary,
  );
  return c.json(maskedAgent(agent), 200);
};
