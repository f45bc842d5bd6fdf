/** `GET /v1/schedules/{id}`: the Schedule, with its status and next slot. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSchedule } from "./access";
import { ScheduleIdParamsSchema, ScheduleSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/schedules/{id}",
  operationId: "getSchedule",
  summary: "Get a schedule",
  tags: ["Schedules"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: ScheduleIdParamsSchema },
  responses: {
    200: jsonContent(ScheduleSchema, "The schedule."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { schedule } = await loadOwnedSchedule(c.env, c.var.principal, c.req.valid("param").id);
  return c.json(schedule, 200);
};
