/**
 * The frames of `GET /v1/sessions/{id}/events`, as named schemas for the document: the same
 * JSON is a WebSocket frame and the `data:` of a Server-Sent Event.
 */
import { z } from "@hono/zod-openapi";
import { TOOL_CALL_STATUSES } from "../../session-config/types";
import { CREDENTIAL_PROBLEMS } from "../../egress/credentials";
import { SessionStatusSchema, StopReasonSchema, TimestampSchema, UsageSchema } from "../schemas";
import { MAX_SEQUENCE_DIGITS, SEQUENCE_PATTERN } from "../../shared/cursor";
import { MessageSchema, ToolCallDecisionSchema } from "./schemas";

const StatusDataSchema = z
  .object({ status: SessionStatusSchema, stop_reason: StopReasonSchema.nullable(), error: z.string().nullable() })
  .openapi("StatusEventData");

export const ToolCallEventDataSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    step: z.number().int(),
    input: z.unknown(),
    status: z.enum(TOOL_CALL_STATUSES),
    output: z.string().nullable().openapi({ description: "Set once the call is finished (`done` or `error`)." }),
    is_error: z.boolean(),
    decided_by: z.string().nullable().openapi({
      description:
        'Who approved or denied the call (`"system"` when its approval expired); null while it waits or when it needed no decision.',
    }),
    decided_at: TimestampSchema.nullable(),
    decision: ToolCallDecisionSchema.nullable(),
  })
  .openapi("ToolCallEventData", { description: "A tool call as of this event: `status` is its status then." });

const SubagentDataSchema = z
  .object({
    tool_call_id: z.string().openapi({ description: "The `agent` tool call that started the child." }),
    session_id: z.string().openapi({ description: "The child session: read it, watch it, approve its calls with the usual routes." }),
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
  })
  .openapi("SubagentEventData");

const CredentialRequiredDataSchema = z
  .object({
    credential: z.string().openapi({ description: "The credential's name, as the tool's `auth.credential` gives it.", example: "github" }),
    owner: z.enum(["end_user", "tenant"]).openapi({
      description: "Who must connect it: the session's end user (`PUT /v1/end-users/{subject}/credentials/{name}`) or the tenant.",
    }),
    subject: z.string().optional().openapi({ description: "The end user's subject, when `owner` is `end_user`." }),
    code: z.enum(CREDENTIAL_PROBLEMS),
  })
  .openapi("CredentialRequiredEventData");

const SnapshotDataSchema = z
  .object({
    status: SessionStatusSchema,
    stop_reason: StopReasonSchema.nullable(),
    error: z.string().nullable(),
    usage: UsageSchema,
    last_event_id: z.number().int().openapi({ description: "The newest event the snapshot includes; resume after it." }),
    reset: z.boolean().openapi({ description: "The cursor given was older than the retention: start over from this snapshot." }),
    messages: z.array(MessageSchema).openapi({ description: "The newest messages (at most 20), oldest first." }),
    has_earlier_messages: z.boolean().openapi({ description: "Older messages exist: read them with GET …/messages." }),
    open_tool_calls: z.array(ToolCallEventDataSchema).openapi({ description: "Calls of the last model response without a result yet." }),
  })
  .openapi("SnapshotEventData");

const DeltaDataSchema = z
  .object({
    index: z.number().int().openapi({ description: "The block's position in the answer being written." }),
    text: z.string(),
    offset: z.number().int().openapi({ description: "Where `text` starts in that block; 0 again when a retried call writes it anew." }),
    kind: z.literal("reasoning").optional().openapi({
      description:
        "`reasoning`: the model's reasoning (a `thinking` block of the answer), never answer text. Absent for the answer's text.",
    }),
  })
  .openapi("DeltaEventData");

const DeltaResetDataSchema = z
  .object({
    indices: z
      .array(z.number().int())
      .openapi({ description: "The blocks (by `index`, as the deltas gave it) of the answer being written whose streamed text to drop." }),
  })
  .openapi("DeltaResetEventData");

const stored = {
  id: z.number().int().openapi({ description: "The event id: increasing, the cursor to resume after." }),
  created_at: TimestampSchema,
};
const transient = { created_at: TimestampSchema };

export const EventFrameSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("snapshot"), data: SnapshotDataSchema, ...transient }).openapi("SnapshotEvent"),
    z.object({ type: z.literal("status"), data: StatusDataSchema, ...stored }).openapi("StatusEvent"),
    z.object({ type: z.literal("message"), data: MessageSchema, ...stored }).openapi("MessageEvent"),
    z.object({ type: z.literal("tool_call"), data: ToolCallEventDataSchema, ...stored }).openapi("ToolCallEvent"),
    z.object({ type: z.literal("tool_result"), data: ToolCallEventDataSchema, ...stored }).openapi("ToolResultEvent"),
    z.object({ type: z.literal("usage"), data: UsageSchema, ...stored }).openapi("UsageEvent"),
    z.object({ type: z.literal("subagent"), data: SubagentDataSchema, ...stored }).openapi("SubagentEvent", {
      description: "A child session started by an `agent` tool call: sent when it starts and at each of its status changes.",
    }),
    z.object({ type: z.literal("credential_required"), data: CredentialRequiredDataSchema, ...stored }).openapi("CredentialRequiredEvent", {
      description:
        "A tool call could not use the vault credential its tool names (the call's result says why); the run goes on. " +
        "The status webhook `session.credential_required` says the same.",
    }),
    z
      .object({ type: z.literal("delta"), data: DeltaDataSchema, ...transient })
      .openapi("DeltaEvent", { description: 'Streamed model text (and reasoning, with `kind: "reasoning"`): not stored, not replayed.' }),
    z.object({ type: z.literal("delta_reset"), data: DeltaResetDataSchema, ...transient }).openapi("DeltaResetEvent", {
      description:
        "The model call that was writing the answer failed after some of its text was streamed (an error mid-stream, a stream cut off): " +
        "drop the text held for these blocks. A retried call streams them anew from offset 0; the saved answer holds only what it wrote. Not stored, not replayed.",
    }),
    z
      .object({ type: z.literal("end"), data: StatusDataSchema, ...transient })
      .openapi("EndEvent", { description: "The session reached a final status; the stream closes." }),
  ])
  .openapi("EventFrame", {
    description:
      "One event. Over Server-Sent Events: `id:` is the event id (a snapshot carries its `last_event_id`), `event:` its type and `data:` this JSON; a comment line every 15 s keeps the stream alive. Over a WebSocket: one text frame each.",
  });

/**
 * The body of an events answer: the stream itself, as text, which a validating proxy reads as
 * such. `contentSchema` names what its events carry (OpenAPI 3.1 has no `itemSchema` yet);
 * validators take it as an annotation, and clients as the type of each event's `data`.
 */
/** JSON Schema 2020-12's content keywords, which the generator's metadata type does not list. */
const EVENT_STREAM_CONTENT = { contentMediaType: "text/event-stream", contentSchema: { $ref: "#/components/schemas/EventFrame" } } as {
  description?: string;
};

export const EventStreamSchema = z.string().openapi("SessionEventStream", {
  ...EVENT_STREAM_CONTENT,
  description:
    "Server-Sent Events: per event, `id:` the event id (a snapshot's is its `last_event_id`), `event:` the frame's `type` and `data:` one `EventFrame` as JSON; " +
    "a comment line every 15 s keeps the stream alive. The stream ends after an `end` frame.",
  example: 'id: 7\nevent: status\ndata: {"type":"status","id":7,"data":{"status":"done","stop_reason":"end_turn"}}\n\n',
});

/** A cursor is an event id: a sequence number (ids stay below 2^53); the patterns bound the length. */
const MAX_EVENT_ID_DIGITS = MAX_SEQUENCE_DIGITS;

export const EventsQuerySchema = z.object({
  after: z
    .string()
    .regex(SEQUENCE_PATTERN, "Must be an event id.")
    .optional()
    .openapi({
      param: { name: "after", in: "query" },
      maxLength: MAX_EVENT_ID_DIGITS,
      description: "Replay every stored event after this id, then live ones (no snapshot). `Last-Event-ID` takes precedence.",
      example: "42",
    }),
});

export const EventsHeadersSchema = z.object({
  "last-event-id": z
    .string()
    .regex(new RegExp(`^(\\d{1,${MAX_EVENT_ID_DIGITS}})?$`), "Must be an event id.")
    .optional()
    .openapi({
      param: { name: "last-event-id", in: "header" },
      maxLength: MAX_EVENT_ID_DIGITS,
      description: "Sent by EventSource when it reconnects: resume after this event.",
    }),
});
