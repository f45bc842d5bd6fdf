/** `GET /v1/agents`: the tenant's agents, newest first; archived ones with `include_archived=true`. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { AgentClient, maskedAgent } from "../../agents/client";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { AgentListQuerySchema, AgentPageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/agents",
  operationId: "listAgents",
  summary: "List agents",
  description: "Agents belong to the tenant: every caller with sessions:read sees all of them.",
  tags: ["Agents"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: AgentListQuerySchema },
  responses: {
    200: jsonContent(AgentPageSchema, "A page of agents."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor, name, include_archived } = c.req.valid("query");
  const page = await new AgentClient(c.env, c.var.principal.tenantId).list({
    limit,
    cursor: cursor ?? null,
    name: name ?? null,
    includeArchived: include_archived === "true",
  });
  return c.json({ data: page.data.map(maskedAgent), next_cursor: page.next_cursor }, 200);
};
