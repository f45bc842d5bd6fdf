/**
 * `POST /v1/mcp`: the platform as an MCP server over Streamable HTTP (src/mcp-server). The body is
 * read here, not by the route's validator: a request that is not JSON-RPC gets a JSON-RPC error,
 * as MCP clients expect, never a problem document.
 */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { serveMcp } from "../../mcp-server/server";
import { actorOf } from "../actor";
import type { App, AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";

/** JSON-RPC 2.0 "Parse error". */
const PARSE_ERROR = -32700;

const JSON_RPC_MESSAGE = { type: "object", description: "A JSON-RPC 2.0 message of MCP, or a batch of them.", additionalProperties: true } as const;

export const route = createRoute({
  method: "post",
  path: "/v1/mcp",
  operationId: "mcpMessage",
  summary: "MCP server (Streamable HTTP)",
  description:
    "The tenant's live agents as MCP tools: `tools/list` offers each (input `{ input: string }`, its output schema as `outputSchema`); `tools/call` runs a session of the " +
    "agent's `production` alias (else its latest version) to its end and answers with the result (`structuredContent` with an output schema). " +
    "Progress notifications follow the call's steps when the request has a progress token; `notifications/cancelled` cancels the call's session; a session " +
    "that stops to wait for a person answers `isError` with the session id and what it waits for (`_meta.session_id`, `_meta.waiting_for`). " +
    "Accept must allow both `application/json` and `text/event-stream`. Bad JSON-RPC gets a JSON-RPC error.",
  tags: ["MCP"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    body: { required: true, content: { "application/json": { schema: JSON_RPC_MESSAGE, example: { jsonrpc: "2.0", id: 1, method: "tools/list" } } } },
  },
  responses: {
    200: {
      description: "A JSON-RPC response, or a stream of them (with progress notifications) as Server-Sent Events.",
      content: { "application/json": { schema: JSON_RPC_MESSAGE }, "text/event-stream": { schema: { type: "string" } } },
    },
    202: { description: "A notification or response was accepted." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 406, 415),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const text = await c.req.raw.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return c.json({ jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: "Parse error: the body is not JSON" } }, 400) as never;
  }
  return (await serveMcp(actorOf(c), new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers }), body)) as never;
};

export function registerMcpRoutes(app: App): void {
  app.openapi(route, handler);
}
