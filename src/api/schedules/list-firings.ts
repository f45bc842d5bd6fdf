/** `GET /v1/schedules/{id}/firings`: each firing of the schedule with its session and outcome, newest slot first. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { MAX_FIRINGS_KEPT } from "../../schedules/store";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSchedule } from "./access";
import { FiringListQuerySchema, FiringPageSchema, ScheduleIdParamsSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/v1/schedules/{id}/firings",
  operationId: "listScheduleFirings",
  summary: "List a schedule's firings",
  description: `Newest slot first; the newest ${MAX_FIRINGS_KEPT} firings of each schedule are kept. Slots that pass while the tenant is suspended are not fired and not listed.`,
  tags: ["Schedules"],
  security: bearerAuth("sessions:read"),
  middleware: [requireScope("sessions:read")] as const,
  request: { params: ScheduleIdParamsSchema, query: FiringListQuerySchema },
  responses: {
    200: jsonContent(FiringPageSchema, "A page of firings."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { limit, cursor } = c.req.valid("query");
  const { schedule, scheduler } = await loadOwnedSchedule(c.env, c.var.principal, c.req.valid("param").id);
  // A firings cursor names its schedule: another schedule's is refused here, as the Scheduler would throw on it.
  if (cursor !== undefined && decodeTimeIdCursor("firings", cursor)?.id !== schedule.id) {
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: "query.cursor", message: "Not a cursor returned by this list." }],
    });
  }
  return c.json(await scheduler.listFirings(schedule.id, { limit, cursor: cursor ?? null }), 200);
};
