/** `GET /v1/memory/items/versions?namespace=…&key=…`: the item's last 10 versions, newest first. */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { ItemQuerySchema, MemoryVersionSchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "get",
  path: "/v1/memory/items/versions",
  operationId: "listMemoryItemVersions",
  summary: "List a memory item's versions",
  tags: ["Memory"],
  security: bearerAuth("memory:read"),
  middleware: [requireScope("memory:read")] as const,
  request: { query: ItemQuerySchema },
  responses: {
    200: jsonContent(z.object({ data: z.array(MemoryVersionSchema) }).openapi("MemoryVersionList"), "Its versions, newest first."),
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { namespace, key } = c.req.valid("query");
  return c.json({ data: await memoryOf(c).versions(namespace.split("."), key, Date.now()) }, 200);
};
