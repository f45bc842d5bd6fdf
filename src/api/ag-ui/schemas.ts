/**
 * The AG-UI route's body as the document states it: `RunAgentInput` of `@ag-ui/core` 1.0 with the
 * platform's bounds (ids, counts). The handler checks the rest with the schema `@ag-ui/core` exports.
 */
import { z } from "@hono/zod-openapi";
import { MAX_AG_UI_ID_CHARS, MAX_RESUME_ENTRIES } from "../../ag-ui/input";
import { MAX_CHAT_ID_CHARS, MAX_CHAT_MESSAGES } from "../../chat/request";
import { MAX_TOOLS_PER_SESSION } from "../../session-config/bounds";
import { MAX_TOOL_NAME_CHARS } from "../../session-config/tool-name";
import { MAX_TOOL_DESCRIPTION_CHARS } from "../../session-config/tool-schemas";

const IdSchema = z.string().max(MAX_AG_UI_ID_CHARS);

export const RunAgentInputSchema = z
  .object({
    threadId: z.string().min(1).max(MAX_CHAT_ID_CHARS).openapi({
      description: "Names the caller's session of this agent, as a chat id does: the same id always reaches the same session.",
    }),
    runId: IdSchema.openapi({ description: "The client's id of this run, echoed in `RUN_STARTED` and `RUN_FINISHED`." }),
    protocolVersion: z.string().max(16).optional(),
    messages: z
      .array(
        z
          .object({ id: IdSchema, role: z.enum(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]) })
          .passthrough(),
      )
      .max(MAX_CHAT_MESSAGES)
      .openapi({
        description:
          "The conversation as the client holds it. Only its end is read: the newest user message starts the next run; tool messages after the last assistant message answer the client tools the last run left waiting. The history itself is the session's.",
      }),
    tools: z
      .array(z.object({ name: z.string().max(MAX_TOOL_NAME_CHARS), description: z.string().max(MAX_TOOL_DESCRIPTION_CHARS) }).passthrough())
      .max(MAX_TOOLS_PER_SESSION)
      .optional()
      .openapi({
        description:
          "Client tools the caller runs (`parameters`: a JSON Schema of `type: object`), added to the agent's on the thread's first run; a later run may declare no other.",
      }),
    context: z
      .array(z.object({ description: z.string().max(2_000), value: z.string().max(20_000) }))
      .max(100)
      .optional(),
    state: z.unknown().optional(),
    forwardedProps: z.unknown().optional(),
    resume: z
      .array(z.object({ interruptId: IdSchema, status: z.enum(["resolved", "cancelled"]), payload: z.unknown().optional() }).passthrough())
      .max(MAX_RESUME_ENTRIES)
      .optional()
      .openapi({
        description:
          'Answers to the interrupts that ended the last run, one per call waiting for approval (`interruptId` is the call id): `resolved` with `payload: { "approved": true | false, "reason"?: string }`, or `cancelled` to deny.',
      }),
  })
  .passthrough()
  .openapi("RunAgentInput", {
    description:
      "AG-UI's `RunAgentInput` (`@ag-ui/core` 1.0), as `HttpAgent` of `@ag-ui/client` sends it. `context`, `state` and `forwardedProps` are not read.",
  });

export const AgUiEventStreamSchema = z.string().openapi("AgUiEventStream", {
  description:
    "AG-UI events (`@ag-ui/core` 1.0) as Server-Sent Events (`data: <event JSON>`): `RUN_STARTED`; `TEXT_MESSAGE_START`/`_CONTENT`/`_END`; " +
    "`REASONING_START`, `REASONING_MESSAGE_START`/`_CONTENT`/`_END`, `REASONING_END`; `TOOL_CALL_START`/`_ARGS`/`_END`; `TOOL_CALL_RESULT` " +
    "(not for a client tool's own output); `CUSTOM` `credential_required`; then `RUN_FINISHED` or `RUN_ERROR`. A call waiting for approval ends the run " +
    'with `outcome: { type: "interrupt", interrupts: [{ id: <call id>, reason: "tool_approval", toolCallId, responseSchema }] }`; a client tool waiting for ' +
    'its output with `outcome: { type: "success", pendingToolCallIds }`; a cancelled session with `outcome: { type: "cancelled" }`; a failed run, or an ' +
    "answer for a call that does not wait (code `call_not_waiting`), with `RUN_ERROR`.",
});
