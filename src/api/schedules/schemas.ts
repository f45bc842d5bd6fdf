/**
 * Schemas of the schedule routes: the Schedule and its firings, the create and update bodies,
 * and the path and query parameters. What a firing runs is the session create body as the
 * session routes accept it, or a message to one session.
 */
import { z } from "@hono/zod-openapi";
import { MAX_SUBJECT_LENGTH } from "../../auth/platform-keys";
import { MAX_CRON_CHARS, MAX_TIME_ZONE_CHARS } from "../../schedules/cron";
import { DISABLED_REASONS, FIRING_OUTCOMES, SCHEDULE_STATUSES } from "../../schedules/types";
import { decodeTimeIdCursor } from "../../shared/cursor";
import { ProblemCodeSchema } from "../errors";
import { pageQuerySchema, pageSchema, TenantIdSchema, TimestampSchema } from "../schemas";
import { ScheduleMessageSchema } from "../../schedules/action";
import { CreateSessionRequestSchema } from "../sessions/schemas";
import { MAX_SCHEDULE_ID_CHARS, SCHEDULE_ID_PATTERN } from "./ids";

export { ScheduleMessageSchema };

const CronSchema = z
  .string()
  .min(1)
  .max(MAX_CRON_CHARS)
  .openapi({
    description:
      "A cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with a leading seconds field. " +
      "Names (`MON`, `JAN`), ranges, lists, steps, `L` and `#`, and nicknames such as `@hourly` are read; " +
      "day of month and day of week match when either does, as in classic cron.",
    example: "0 9 * * MON-FRI",
  });

const TimeZoneSchema = z.string().min(1).max(MAX_TIME_ZONE_CHARS).openapi({
  description: "An IANA time zone the expression is read in; `UTC` when absent. Daylight-saving changes follow the zone.",
  example: "Europe/Paris",
});

export const ScheduleStatusSchema = z.enum(SCHEDULE_STATUSES).openapi("ScheduleStatus", {
  description:
    "`active` fires at each slot; `paused` fires nothing until resumed; `disabled` fires nothing ever again (see `disabled_reason`).",
});

export const ScheduleSchema = z
  .object({
    id: z.string().openapi({ example: "sch_Xb2mV7kqPz9w4LbNc8RtYd3F" }),
    tenant_id: TenantIdSchema,
    created_by: z.string().openapi({ description: "The subject that created the schedule; each firing acts as it." }),
    cron: CronSchema,
    timezone: z.string().openapi({ example: "Europe/Paris" }),
    paused: z.boolean(),
    status: ScheduleStatusSchema,
    disabled_reason: z
      .enum(DISABLED_REASONS)
      .nullable()
      .openapi({
        description:
          "Why the schedule stopped for good: the API key it is bound to was revoked (`api_key_revoked`) or expired (`api_key_expired`), " +
          "or the token of its creator, which it was bound to, expired (`creator_expired`). Null unless `disabled`.",
      }),
    disabled_at: TimestampSchema.nullable(),
    expires_at: TimestampSchema.nullable().openapi({
      description:
        "When the schedule stops, disabled with `creator_expired`: the expiry of the token it was created with, for a creator who used neither an " +
        "API key (the schedule is then bound to the key) nor `tenant:admin` (bound to the tenant). Null for those two.",
    }),
    // Unions, not `.nullable()`: the named components themselves must stay non-null for generators.
    session: z
      .union([CreateSessionRequestSchema, z.null()])
      .openapi({ description: "What each firing creates; null for a message schedule." }),
    message: z.union([ScheduleMessageSchema, z.null()]).openapi({ description: "What each firing sends; null for a session schedule." }),
    next_run_at: TimestampSchema.nullable().openapi({ description: "The next slot; null while paused or disabled." }),
    last_fired_at: TimestampSchema.nullable(),
    created_at: TimestampSchema,
    updated_at: TimestampSchema,
  })
  .openapi("Schedule");

/**
 * The create body's rules that no field states, for validators and generated clients: exactly one
 * action (`{ not: {} }`: the other is absent), and a session's input. The refinement below checks
 * the same. Written as objects, not the boolean schemas `true` and `false` they equal: some
 * generators (orval's zod output) fail on a boolean schema.
 */
const ANY = {};
const ABSENT = { not: {} };
const ONE_ACTION = {
  oneOf: [
    { required: ["session"], properties: { session: { required: ["input"], properties: { input: ANY } }, message: ABSENT } },
    { required: ["message"], properties: { message: ANY, session: ABSENT } },
  ],
} as { description?: string };

export const CreateScheduleRequestSchema = z
  .object({
    cron: CronSchema,
    timezone: TimeZoneSchema.optional(),
    paused: z.boolean().optional().openapi({ description: "Create it paused: it fires nothing until `PATCH` with `paused: false`." }),
    session: CreateSessionRequestSchema.optional().openapi({
      description: "Each firing creates a new session from this body, with its `input` (required here) starting its run.",
    }),
    message: ScheduleMessageSchema.optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.session === undefined) === (body.message === undefined)) {
      ctx.addIssue({ code: "custom", message: "Give exactly one of session and message.", path: ["session"] });
    } else if (body.session && body.session.input === undefined) {
      ctx.addIssue({ code: "custom", message: "Required: each firing starts a run with this input.", path: ["session", "input"] });
    }
  })
  .openapi("CreateScheduleRequest", ONE_ACTION);

export const CREATE_SCHEDULE_EXAMPLE: z.input<typeof CreateScheduleRequestSchema> = {
  cron: "0 7 * * MON-FRI",
  timezone: "Europe/Paris",
  session: {
    input: "Summarise yesterday's failed orders and post the list.",
    system: "You are the operations assistant of an online shop.",
    tools: [{ type: "builtin", name: "get_time" }],
    metadata: { job: "daily-failures" },
  },
};

export const UpdateScheduleRequestSchema = z
  .object({
    cron: CronSchema.optional(),
    timezone: TimeZoneSchema.optional(),
    paused: z
      .boolean()
      .optional()
      .openapi({ description: "`true` pauses; `false` resumes from the next slot (slots passed while paused are not fired)." }),
  })
  .strict()
  .refine(
    (body) => body.cron !== undefined || body.timezone !== undefined || body.paused !== undefined,
    "Give at least one of cron, timezone and paused.",
  )
  // The object takes no other field, so one property is one of them.
  .openapi("UpdateScheduleRequest", { minProperties: 1 });

export const FiringSchema = z
  .object({
    schedule_id: z.string(),
    scheduled_at: TimestampSchema.openapi({
      description: "The slot the expression named. Slots missed while the platform was down fire once, as the first of them.",
    }),
    fired_at: TimestampSchema.openapi({ description: "When the firing was recorded, just before it acted." }),
    session_id: z.string().nullable().openapi({ description: "The session created, or the one the message went to." }),
    outcome: z.enum(FIRING_OUTCOMES).openapi("FiringOutcome", {
      description:
        "`pending`: recorded, its action being completed; `started`: a session or a message started a run; `enqueued`, `interrupted`: " +
        "what the message did to the run going; `failed`: refused, as the route would have refused it (see `error_code`, `error`).",
    }),
    error_code: z
      .union([ProblemCodeSchema, z.null()])
      .openapi({ description: "The problem code the route would have answered; null unless `failed`." }),
    error: z.string().nullable(),
    finished_at: TimestampSchema.nullable(),
  })
  .openapi("Firing");

export const SchedulePageSchema = pageSchema(ScheduleSchema, "SchedulePage");
export const FiringPageSchema = pageSchema(FiringSchema, "FiringPage");

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
export const ScheduleIdParamsSchema = z.object({
  id: z.string().openapi({
    param: { name: "id", in: "path" },
    pattern: SCHEDULE_ID_PATTERN.source,
    maxLength: MAX_SCHEDULE_ID_CHARS,
    example: "sch_Xb2mV7kqPz9w4LbNc8RtYd3F",
  }),
});

export const ScheduleListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("schedules", cursor) !== null).extend({
  created_by: z
    .string()
    .min(1)
    .max(MAX_SUBJECT_LENGTH)
    .optional()
    .openapi({
      param: { name: "created_by", in: "query" },
      description: "Only schedules this subject created. Without tenant:admin, only your own are listed.",
    }),
});

export const FiringListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor("firings", cursor) !== null);
