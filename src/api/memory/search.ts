/** `POST /v1/memory/search`: items within a namespace prefix, ranked by BM25 over their text, filtered exactly. */
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { memoryOf } from "./client";
import { MemorySearchSchema, ScoredMemoryItemSchema } from "../../memory/schemas";
import type { AppEnv } from "../context";
import { AUTHENTICATED_ERRORS, BODY_ERRORS, errorResponses } from "../errors";
import { requireScope } from "../middleware/require-scope";
import { jsonBody, jsonContent } from "../schemas";
import { bearerAuth } from "../security";

export const route = createRoute({
  method: "post",
  path: "/v1/memory/search",
  operationId: "searchMemory",
  summary: "Search memory",
  description:
    "A query's words are matched as words (no operators); an item matching more of them, and rarer ones, ranks higher. Expired items never appear. " +
    "A search reads at most 1,000 items to apply its filter or reach its offset (the query's best matches, or without a query the newest items): " +
    "a page past them is a 400 that says to narrow `namespace_prefix` or add words; within a namespace of at most 1,000 items every page is reachable.",
  tags: ["Memory"],
  security: bearerAuth("memory:read"),
  middleware: [requireScope("memory:read")] as const,
  request: { body: jsonBody(MemorySearchSchema, { namespace_prefix: ["users", "u_123"], query: "language preference" }) },
  responses: {
    200: jsonContent(z.object({ data: z.array(ScoredMemoryItemSchema) }).openapi("MemorySearchResult"), "The best matches first."),
    ...errorResponses(...AUTHENTICATED_ERRORS, ...BODY_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const data = await memoryOf(c).search({
    prefixes: [body.namespace_prefix],
    query: body.query ?? null,
    filter: body.filter,
    limit: body.limit,
    offset: body.offset,
    now: Date.now(),
  });
  return c.json({ data }, 200);
};
