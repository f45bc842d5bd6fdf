/** `POST /v1/memory/namespaces`: the namespaces holding items, within a prefix, cut to a depth, in order. */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { ListNamespacesSchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "post",
  path: "/v1/memory/namespaces",
  operationId: "listMemoryNamespaces",
  summary: "List memory namespaces",
  tags: ["Memory"],
  security: bearerAuth("memory:read"),
  middleware: [requireScope("memory:read")] as const,
  request: { body: jsonBody(ListNamespacesSchema, { prefix: ["users"], max_depth: 2 }) },
  responses: {
    200: jsonContent(
      z.object({ data: z.array(z.array(z.string())), next_cursor: z.string().nullable() }).openapi("MemoryNamespacePage"),
      "A page of namespaces.",
    ),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const page = await memoryOf(c).namespaces({
    prefix: body.prefix,
    maxDepth: body.max_depth ?? null,
    limit: body.limit,
    cursor: body.cursor ?? null,
    now: Date.now(),
  });
  return c.json(page, 200);
};
