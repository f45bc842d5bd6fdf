/** `GET /v1/memory/items?namespace=…&key=…`: one live item (a read restarts its time to live when it asks for that). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { ItemQuerySchema, MemoryItemSchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "get",
  path: "/v1/memory/items",
  operationId: "getMemoryItem",
  summary: "Read a memory item",
  tags: ["Memory"],
  security: bearerAuth("memory:read"),
  middleware: [requireScope("memory:read")] as const,
  request: { query: ItemQuerySchema },
  responses: {
    200: jsonContent(MemoryItemSchema, "The item."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { namespace, key } = c.req.valid("query");
  return c.json(await memoryOf(c).get(namespace.split("."), key, Date.now()), 200);
};
