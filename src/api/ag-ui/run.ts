/**
 * `POST /v1/agents/{agent_id}/ag-ui`: a run of AG-UI (`HttpAgent` of `@ag-ui/client`). The input is
 * checked with the schema `@ag-ui/core` exports (400 with paths); the run's events stream back as
 * AG-UI events, read from the session's event log (src/ag-ui/).
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { readRunInput } from "../../ag-ui/input";
import { loadAgUiSdk } from "../../ag-ui/load-sdk";
import { AG_UI_STREAM_HEADERS } from "../../ag-ui/stream";
import { runOnThread } from "../../ag-ui/thread";
import { actorOf } from "../actor";
import { knownAgentId } from "../agents/ids";
import { AgentIdParamsSchema } from "../agents/schemas";
import type { AppEnv } from "../context";
import { ApiError, AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { fieldErrors } from "../middleware/validation";
import { requireScope } from "../middleware/require-scope";
import { jsonBody } from "../schemas";
import { bearerAuth } from "../security";
import { AgUiEventStreamSchema, RunAgentInputSchema } from "./schemas";

export const route = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/ag-ui",
  operationId: "runAgentAgUi",
  summary: "Run an agent (AG-UI)",
  description:
    "Speaks AG-UI (`HttpAgent` of `@ag-ui/client` 1.x). `threadId` names the caller's session of this agent, the same one a chat id of that value names " +
    "(created on first use from the agent's `production` alias, else its latest version, with `metadata.chat_id`). The newest user message starts the next run; " +
    "`tools` are client tools, the caller's own, fixed by the thread's first run. A call waiting for approval ends the run with an `interrupt` outcome; " +
    "the next run's `resume` entries decide it. A client tool's call ends the run naming it in `pendingToolCallIds`; the next run's tool message answers it. " +
    "An input that is not a `RunAgentInput` is 400 with the paths; a run already going is 409.",
  tags: ["AG-UI"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    params: AgentIdParamsSchema,
    body: jsonBody(RunAgentInputSchema, {
      threadId: "thread-1",
      runId: "run-1",
      messages: [{ id: "m1", role: "user", content: "What time is it?" }],
      tools: [],
      context: [],
    }),
  },
  responses: {
    200: { description: "The run as AG-UI events.", content: { "text/event-stream": { schema: AgUiEventStreamSchema } } },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const agentId = knownAgentId(c.req.valid("param").agent_id);
  const sdk = await loadAgUiSdk();
  const read = readRunInput(sdk.RunAgentInputSchema, c.req.valid("json"));
  if (!read.ok) throw new ApiError("validation_failed", undefined, { errors: [...fieldErrors(read.issues, "json"), ...read.errors] });
  const { threadId, runId } = read.input;
  const body = await runOnThread(sdk, actorOf(c), agentId, { threadId, runId, ask: read.ask, tools: read.tools });
  return new Response(body, { headers: AG_UI_STREAM_HEADERS }) as never;
};
