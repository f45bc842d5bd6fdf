/** `GET /v1/agents/{agent_id}/versions/{version}`: one immutable version; its definition is the agent's export. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedVersion } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentVersionSchema, VersionParamsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/versions/{version}",
  operationId: "getAgentVersion",
  summary: "Get one version of an agent",
  description: "Its `definition` is a valid body of `POST /v1/agents`, in this tenant or another: the export format.",
  tags: ["Agents"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: VersionParamsSchema },
  responses: {
    200: jsonContent(AgentVersionSchema, "The version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { agent_id, version } = c.req.valid("param");
  const found = await new AgentClient(c.env, c.var.principal.tenantId).getVersion(knownAgentId(agent_id), Number(version));
  return c.json(maskedVersion(found), 200);
};
