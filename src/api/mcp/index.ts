/**
 * `POST /v1/mcp`: the platform as an MCP server over Streamable HTTP (src/mcp-server). The body is
 * read here, not by the route's validator: a request that is not JSON-RPC gets a JSON-RPC error,
 * as MCP clients expect, never a problem document.
 */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { MAX_MCP_BATCH_MESSAGES } from "../../limits";
import { serveMcp } from "../../mcp-server/server";
import { actorOf } from "../actor";
import type { App, AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";

/** JSON-RPC 2.0 "Parse error". */
const PARSE_ERROR = -32700;
/** JSON-RPC 2.0 "Invalid Request": what an empty batch is answered with (JSON-RPC 2.0, section 6). */
const INVALID_REQUEST = -32600;

const JSON_RPC_OBJECT = { type: "object", description: "A JSON-RPC 2.0 message of MCP.", additionalProperties: true } as const;
const JSON_RPC_MESSAGE = {
  description: "A JSON-RPC 2.0 message of MCP, or a batch of them (at least one).",
  oneOf: [JSON_RPC_OBJECT, { type: "array" as const, items: JSON_RPC_OBJECT, minItems: 1, maxItems: MAX_MCP_BATCH_MESSAGES }],
};

/**
 * A JSON-RPC error response: what the MCP endpoint answers a request that is not JSON-RPC, or
 * that its transport refuses (an `Accept` or `Content-Type` it cannot serve), as MCP clients read it.
 */
const JSON_RPC_ERROR = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .openapi("JsonRpcError", { description: "A JSON-RPC 2.0 error response." });

/** The statuses whose answer is a JSON-RPC error when the MCP transport gives it, and a problem when the gateway does. */
function jsonRpcOrProblem<S extends 400 | 406 | 415>(status: S, when: string) {
  const problem = errorResponses(status)[status];
  return {
    ...problem,
    description: `${when} as a JSON-RPC error (\`application/json\`), as MCP clients expect; a refusal of the gateway's as a problem.`,
    // JSON-RPC first: a validator that matches `application/json` against `+json` types takes the first that fits.
    content: { "application/json": { schema: JSON_RPC_ERROR }, ...problem.content },
  };
}

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
    "Accept must allow both `application/json` and `text/event-stream`. What is not JSON-RPC (an empty batch included) gets a JSON-RPC error, as do an `Accept` or `Content-Type` the transport cannot serve.",
  tags: ["MCP"],
  security: bearerAuth("sessions:write"),
  middleware: [requireScope("sessions:write")] as const,
  request: {
    body: {
      required: true,
      content: { "application/json": { schema: JSON_RPC_MESSAGE, example: { jsonrpc: "2.0", id: 1, method: "tools/list" } } },
    },
  },
  responses: {
    200: {
      description: "A JSON-RPC response, or a stream of them (with progress notifications) as Server-Sent Events.",
      content: { "application/json": { schema: JSON_RPC_MESSAGE }, "text/event-stream": { schema: { type: "string" } } },
    },
    202: { description: "A notification or response was accepted." },
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 406),
    400: jsonRpcOrProblem(
      400,
      `A body that is not JSON-RPC (or an empty batch); a batch of more than ${MAX_MCP_BATCH_MESSAGES} messages is a 413 problem`,
    ),
    406: jsonRpcOrProblem(406, "An `Accept` without `application/json` and `text/event-stream`"),
    415: jsonRpcOrProblem(415, "A body that is not `application/json`"),
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
  if (Array.isArray(body) && body.length === 0) {
    return c.json({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "Invalid Request: an empty batch" } }, 400) as never;
  }
  return (await serveMcp(actorOf(c), new Request(c.req.raw.url, { method: "POST", headers: c.req.raw.headers }), body)) as never;
};

export function registerMcpRoutes(app: App): void {
  app.openapi(route, handler);
}
