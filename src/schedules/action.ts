/**
 * What a schedule fires, as its routes accept it and its firings read it back: a session create
 * body, or a message to one session. A stored action is read with today's schemas, so one that
 * no longer passes them is found before it acts.
 */
import { z } from "@hono/zod-openapi";
import { MAX_SESSION_ID_CHARS, SESSION_ID_PATTERN } from "../session-config/ids";
import { CreateSessionRequestSchema, IF_RUNNING, RunInputSchema } from "../session-config/request-schemas";
import type { ScheduleAction } from "./types";

export const ScheduleMessageSchema = z
  .object({
    // The pattern is stated, not checked here: the route answers any id it cannot find, malformed or not, at this field.
    session_id: z.string().min(1).max(MAX_SESSION_ID_CHARS).openapi({
      pattern: SESSION_ID_PATTERN.source,
      description: "A session the schedule's creator can see.",
      example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F",
    }),
    input: RunInputSchema,
    if_running: z
      .enum(IF_RUNNING)
      .default("reject")
      .openapi({ description: "As on `POST /v1/sessions/{id}/messages`: what a firing does while a run is going." }),
  })
  .strict()
  .openapi("ScheduleMessage", { description: "Each firing adds this message to the session, as `POST /v1/sessions/{id}/messages` would." });

const StoredActionSchema = z.union([
  z.object({ session: CreateSessionRequestSchema, message: z.null() }),
  z.object({ session: z.null(), message: ScheduleMessageSchema }),
]);

/** The stored action read with today's schemas; null when it no longer passes them. */
export function parseAction(stored: unknown): ScheduleAction | null {
  const parsed = StoredActionSchema.safeParse(stored);
  return parsed.success ? (parsed.data as ScheduleAction) : null;
}
