/**
 * `GET /v1/schedules`: the tenant's schedules, newest first. Without tenant:admin a caller lists
 * only its own; a `created_by` naming someone else gives an empty page.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { listFilterFor } from "../../sessions/access";
import { SchedulerClient } from "./scheduler-client";
import { ScheduleListQuerySchema, SchedulePageSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/schedules",
  operationId: "listSchedules",
  summary: "List schedules",
  description: "Without tenant:admin, only the schedules you created are listed; `created_by` naming another subject gives an empty page.",
  tags: ["Schedules"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { query: ScheduleListQuerySchema },
  responses: {
    200: jsonContent(SchedulePageSchema, "A page of schedules."),
    ...errorResponses(...AUTHENTICATED_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor, created_by } = c.req.valid("query");
  const filter = listFilterFor(c.var.principal, created_by);
  if (!filter.visible) return c.json({ data: [], next_cursor: null }, 200);
  const page = await new SchedulerClient(c.env, c.var.principal.tenantId).list({
    limit,
    cursor: cursor ?? null,
    created_by: filter.createdBy,
  });
  return c.json(page, 200);
};
