/**
 * `PATCH /v1/schedules/{id}`: pause, resume, or change the expression or the zone. Resuming, or a
 * new expression, counts the next slot from now: slots passed while paused are not fired.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSchedule } from "./access";
import { checkTiming } from "./create";
import { ScheduleIdParamsSchema, ScheduleSchema, UpdateScheduleRequestSchema } from "./schemas";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "patch",
  path: "/v1/schedules/{id}",
  operationId: "updateSchedule",
  summary: "Pause, resume or retime a schedule",
  description: "409 for a disabled schedule: it never fires again.",
  tags: ["Schedules"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: { params: ScheduleIdParamsSchema, body: jsonBody(UpdateScheduleRequestSchema, { paused: true }) },
  responses: {
    200: jsonContent(ScheduleSchema, "The schedule as it now stands."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const { schedule, scheduler } = await loadOwnedSchedule(c.env, c.var.principal, c.req.valid("param").id);
  const now = Date.now();
  let timezone = body.timezone;
  if (body.cron !== undefined || body.timezone !== undefined) {
    const timing = checkTiming(body.cron ?? schedule.cron, body.timezone ?? schedule.timezone, now);
    if (!timing.ok) throw new ApiError("validation_failed", undefined, { errors: [timing.error] });
    timezone = timing.timezone;
  }
  const updated = await scheduler.update(schedule.id, { cron: body.cron, timezone, paused: body.paused, now }, auditContext(c));
  return c.json(updated, 200);
};
