/** `PUT /v1/memory/items`: writes an item's next version (the first creates it). */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { MemoryItemSchema, PutMemoryItemSchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "put",
  path: "/v1/memory/items",
  operationId: "putMemoryItem",
  summary: "Write a memory item",
  description:
    "Each write is a new `version`; the last 10 stay readable. 409 for a new item past the tenant's `max_memory_items`, or a write that would take its memory past `max_memory_bytes` (versions and index included).",
  tags: ["Memory"],
  security: bearerAuth("memory:write"),
  middleware: [requireScope("memory:write")] as const,
  request: { body: jsonBody(PutMemoryItemSchema, { namespace: ["users", "u_123"], key: "preferences", value: { language: "French" } }) },
  responses: {
    200: jsonContent(MemoryItemSchema, "The item at its new version."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS, 409),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const item = await memoryOf(c).put({
    namespace: body.namespace,
    key: body.key,
    value: body.value,
    ttlSeconds: body.ttl_seconds ?? null,
    refreshTtl: body.refresh_ttl === true,
    createdBy: c.var.principal.subject,
    maxItems: c.var.limits.max_memory_items,
    maxBytes: c.var.limits.max_memory_bytes,
    now: Date.now(),
  });
  return c.json(item, 200);
};
