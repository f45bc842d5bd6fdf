/** Schemas of the session routes' path and query parameters. */
import { z } from "@hono/zod-openapi";
import { MAX_SUBJECT_LENGTH } from "../../auth/platform-keys";
import { decodeIntPairCursor, decodeTimeIdCursor } from "../../shared/cursor";
import { pageQuerySchema, SessionStatusSchema } from "../schemas";
import { MAX_SESSION_ID_CHARS, MAX_TOOL_CALL_ID_CHARS, SESSION_ID_PATTERN, TOOL_CALL_ID_PATTERN } from "./ids";

/** Not checked against the pattern here: a malformed id is answered 404 like any unknown one. */
const SessionIdParam = z
  .string()
  .openapi({ param: { name: "id", in: "path" }, pattern: SESSION_ID_PATTERN.source, maxLength: MAX_SESSION_ID_CHARS, example: "ses_Jq7mV2xkPz9w4LbNc8RtYd3F" });

export const SessionIdParamsSchema = z.object({ id: SessionIdParam });

export const ToolCallParamsSchema = z.object({
  id: SessionIdParam,
  call_id: z
    .string()
    .openapi({ param: { name: "call_id", in: "path" }, pattern: TOOL_CALL_ID_PATTERN.source, maxLength: MAX_TOOL_CALL_ID_CHARS, example: "toolu_01A09q90qw90lq917835lq9" }),
});

export const SessionListQuerySchema = pageQuerySchema((cursor) => decodeTimeIdCursor(cursor) !== null).extend({
  status: SessionStatusSchema.optional().openapi({ param: { name: "status", in: "query" } }),
  created_by: z
    .string()
    .min(1)
    .max(MAX_SUBJECT_LENGTH)
    .optional()
    .openapi({ param: { name: "created_by", in: "query" }, description: "Only sessions this subject created. Without tenant:admin, only your own are listed." }),
});

/** A tool-call cursor names the last call of the previous page (its message and place in it). */
export const ToolCallListQuerySchema = pageQuerySchema((cursor) => decodeIntPairCursor(cursor) !== null);

/** A message cursor is the `seq` of the last message of the previous page. */
const MESSAGE_CURSOR_PATTERN = /^\d{1,15}$/;

export const MessageListQuerySchema = pageQuerySchema((cursor) => MESSAGE_CURSOR_PATTERN.test(cursor))
  .extend({
    after: z.coerce
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ param: { name: "after", in: "query" }, description: "Only messages with a greater `seq`; the same as `cursor`." }),
  })
  .refine((query) => query.after === undefined || query.cursor === undefined, { message: "Give either after or cursor, not both.", path: ["after"] });
