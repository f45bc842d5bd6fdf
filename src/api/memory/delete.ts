/** `DELETE /v1/memory/items?namespace=…&key=…`: the item and its versions are gone. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { ItemQuerySchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { bearerAuth } from "../security";
import { auditContext } from "../audit-context";

export const route = createRoute({
  method: "delete",
  path: "/v1/memory/items",
  operationId: "deleteMemoryItem",
  summary: "Delete a memory item",
  tags: ["Memory"],
  security: bearerAuth("memory:write"),
  middleware: [requireScope("memory:write")] as const,
  request: { query: ItemQuerySchema },
  responses: {
    204: { description: "Deleted, with its versions." },
    ...errorResponses(...AUTHENTICATED_ERRORS, 404),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const { namespace, key } = c.req.valid("query");
  await memoryOf(c).remove(namespace.split("."), key, Date.now(), auditContext(c));
  return c.body(null, 204);
};
