/**
 * `POST /v1/agents/{agent_id}/a2a`: the agent's A2A JSON-RPC endpoint (src/a2a). The body is read
 * here, not by the route's validator: what is not JSON-RPC gets a JSON-RPC error, as A2A clients expect.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { serveA2a } from "../../a2a/serve";
import { AgentClient } from "../../agents/client";
import { actorOf } from "../actor";
import { knownAgentId } from "../agents/ids";
import { AgentIdParamsSchema } from "../agents/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireAnyScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";

const JSON_RPC_OBJECT = { type: "object", description: "A JSON-RPC 2.0 message of A2A.", additionalProperties: true } as const;

export const route = createRoute({
  method: "post",
  path: "/v1/agents/{agent_id}/a2a",
  operationId: "agentA2aMessage",
  summary: "An agent's A2A endpoint (JSON-RPC)",
  description:
    "Agent2Agent over JSON-RPC, as `@a2a-js/sdk` 1.x speaks it: `SendMessage`, `SendStreamingMessage`, `GetTask`, `CancelTask`, `SubscribeToTask` and the task push " +
    "notification config methods, and their 0.3 names (`message/send`, `message/stream`, `tasks/get`, `tasks/cancel`, `tasks/resubscribe`, `tasks/pushNotificationConfig/*`). " +
    "A `contextId` is the caller's session of this agent, the same one a chat id of that value reaches; a task is one run. Streams are Server-Sent Events. " +
    "`SendMessage`, `SendStreamingMessage`, `CancelTask` and setting or deleting a push config need `sessions:write`; the other methods `sessions:read`. " +
    "Once the caller is authenticated and allowed, every error is a JSON-RPC error: -32700 for a body that is not JSON, -32600 for one that is not a request, " +
    "-32601 for an unknown method, -32602 for bad params, -32001 for a task that is not the caller's; a missing credential, a missing scope, an unknown agent " +
    "or a body too large are problem documents (401, 403, 404, 413, 415).",
  tags: ["A2A"],
  // Per method: sessions:write to send, cancel or set a push config; sessions:read for the rest.
  security: [...bearerAuth("sessions:read"), ...bearerAuth("sessions:write")],
  middleware: [requireAnyScope("sessions:read", "sessions:write")] as const,
  request: {
    params: AgentIdParamsSchema,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: JSON_RPC_OBJECT,
          example: {
            jsonrpc: "2.0",
            id: "send-1",
            method: "SendMessage",
            params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Hello" }] } },
          },
        },
      },
    },
  },
  responses: {
    200: {
      description:
        "A JSON-RPC response (an error included), or for a streaming method the task's updates as Server-Sent Events of JSON-RPC responses.",
      content: { "application/json": { schema: JSON_RPC_OBJECT }, "text/event-stream": { schema: { type: "string" } } },
    },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const agentId = knownAgentId(c.req.valid("param").agent_id);
  const agent = await new AgentClient(c.env, c.var.principal.tenantId).get(agentId);
  return (await serveA2a(actorOf(c), agent, new URL(c.req.url).origin, await c.req.raw.text(), c.req.raw.signal)) as never;
};
