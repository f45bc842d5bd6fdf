/** `DELETE /v1/schedules/{id}`: the schedule fires no more, and its firings are forgotten; the sessions it created stay. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { loadOwnedSchedule } from "./access";
import { ScheduleIdParamsSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/schedules/{id}",
  operationId: "deleteSchedule",
  summary: "Delete a schedule",
  description: "The sessions its firings created are not touched.",
  tags: ["Schedules"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: ScheduleIdParamsSchema },
  responses: {
    204: { description: "Deleted." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { schedule, scheduler } = await loadOwnedSchedule(c.env, c.var.principal, c.req.valid("param").id);
  await scheduler.remove(schedule.id, auditContext(c));
  return c.body(null, 204);
};
