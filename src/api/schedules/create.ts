/**
 * `POST /v1/schedules`: a cron expression in a time zone, and what each firing runs: a session
 * create body or a message to one session. Both are checked now, as their routes would check
 * them, so a schedule that could not fire is refused with a 400 instead of failing at each slot;
 * each firing checks them again (limits, models and settings may have changed since).
 */
import { createRoute, type RouteHandler, type z } from "@hono/zod-openapi";
import { checkCron, DEFAULT_TIME_ZONE } from "../../schedules/cron";
import { scheduleCreator } from "../../schedules/binding";
import type { ScheduleAction } from "../../schedules/types";
import type { Actor } from "../../sessions/actor";
import { actorOf } from "../actor";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses, type FieldError } from "../errors";
import { IdempotencyHeadersSchema, idempotent } from "../middleware/idempotency";
import { requireScope } from "../middleware/require-scope";
import { headerRefs } from "../openapi-headers";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { loadOwnedSession } from "../../sessions/access";
import { planSession } from "../../sessions/plan";
import { newScheduleId } from "./ids";
import { SchedulerClient } from "./scheduler-client";
import { CREATE_SCHEDULE_EXAMPLE, CreateScheduleRequestSchema, ScheduleSchema } from "./schemas";

/** A stored action, as JSON; a create body with this much in it is a document, not a job. */
export const MAX_SCHEDULE_ACTION_BYTES = 256 * 1024;

export const route = createRoute({
  method: "post",
  path: "/v1/schedules",
  operationId: "createSchedule",
  summary: "Create a schedule",
  description:
    "Each firing acts as the caller: `session` creates a new session with this create body (its `input` required), `message` adds a message " +
    "to one session, each exactly as the session routes would. 409 when the tenant has `max_schedules` schedules. A schedule created with " +
    "an API key (or a token exchanged from one) is disabled for good when that key is revoked or expires.",
  tags: ["Schedules"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write"), idempotent()] as const,
  request: { headers: IdempotencyHeadersSchema, body: jsonBody(CreateScheduleRequestSchema, CREATE_SCHEDULE_EXAMPLE) },
  responses: {
    201: {
      description: "The new schedule.",
      headers: headerRefs("Location"),
      content: { "application/json": { schema: ScheduleSchema } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409, 422),
  },
});

type CreateScheduleRequest = z.infer<typeof CreateScheduleRequestSchema>;

export function schedulePath(id: string): string {
  return `/v1/schedules/${id}`;
}

/** Pure: the problem of a cron expression or zone that cannot fire, at its field; else the canonical zone. */
export function checkTiming(
  cron: string,
  timezone: string,
  now: number,
): { ok: true; timezone: string } | { ok: false; error: FieldError } {
  const check = checkCron(cron, timezone, now);
  return check.ok ? check : { ok: false, error: { path: `body.${check.field}`, message: check.message } };
}

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const actor = actorOf(c);
  const now = Date.now();
  const timing = checkTiming(body.cron, body.timezone ?? DEFAULT_TIME_ZONE, now);
  if (!timing.ok) throw new ApiError("validation_failed", undefined, { errors: [timing.error] });
  const action = await checkAction(actor, body);
  const schedule = await new SchedulerClient(c.env, actor.principal.tenantId).create(
    {
      id: newScheduleId(),
      creator: scheduleCreator(actor.principal, now),
      cron: body.cron,
      timezone: timing.timezone,
      paused: body.paused ?? false,
      action,
      maxSchedules: actor.limits.max_schedules,
      now,
    },
    actor.audit,
  );
  c.header("Location", schedulePath(schedule.id));
  return c.json(schedule, 201);
};

/** The action as it will be stored, once it passes what its route would check now. */
async function checkAction(actor: Actor, body: CreateScheduleRequest): Promise<ScheduleAction> {
  const action: ScheduleAction = body.session ? { session: body.session, message: null } : { session: null, message: body.message! };
  if (new TextEncoder().encode(JSON.stringify(action)).length > MAX_SCHEDULE_ACTION_BYTES) {
    const field = action.session ? "body.session" : "body.message";
    throw new ApiError("validation_failed", undefined, {
      errors: [{ path: field, message: `Must be at most ${MAX_SCHEDULE_ACTION_BYTES} bytes as JSON.` }],
    });
  }
  if (action.session) {
    await underField("body.session", async () => planSession(actor, action.session));
  } else {
    await loadOwnedSession(actor.env, actor.principal, action.message.session_id).catch((error: unknown) => {
      if (error instanceof ApiError && error.code === "not_found") {
        throw new ApiError("validation_failed", undefined, { errors: [{ path: "body.message.session_id", message: "No such session." }] });
      }
      throw error;
    });
  }
  return action;
}

/** Runs a check written for a route's own body, placing its field errors under `prefix`. */
async function underField<T>(prefix: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== "validation_failed") throw error;
    const errors = (error.errors ?? []).map((problem) => ({ ...problem, path: problem.path.replace(/^body\b/, prefix) }));
    throw new ApiError("validation_failed", error.detail, { errors });
  }
}
