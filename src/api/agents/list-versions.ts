/** `GET /v1/agents/{agent_id}/versions`: every version, newest first. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedVersion } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { knownAgentId } from "./ids";
import { AgentIdParamsSchema, AgentVersionPageSchema, VersionListQuerySchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents/{agent_id}/versions",
  operationId: "listAgentVersions",
  summary: "List an agent's versions",
  tags: ["Agents"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: AgentIdParamsSchema, query: VersionListQuerySchema },
  responses: {
    200: jsonContent(AgentVersionPageSchema, "A page of versions."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const id = knownAgentId(c.req.valid("param").agent_id);
  const { limit, cursor } = c.req.valid("query");
  const page = await new AgentClient(c.env, c.var.principal.tenantId).listVersions(id, { limit, cursor: cursor ?? null });
  return c.json({ data: page.data.map(maskedVersion), next_cursor: page.next_cursor }, 200);
};
