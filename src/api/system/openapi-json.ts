/** `GET /openapi.json`: this API as OpenAPI 3.1, generated from the routes' zod schemas. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { App, AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { openApiDocument } from "../openapi";
import { jsonContent } from "../schemas";
import { NO_AUTH } from "../security";
import { OpenApiDocumentSchema } from "./schemas";

/** Clients and docs pages refetch it often; it only changes with a deployment. */
const CACHE_CONTROL = "public, max-age=300";

export const route = createRoute({
  method: "get",
  path: "/openapi.json",
  operationId: "getOpenApiDocument",
  summary: "This API as an OpenAPI 3.1 document",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: jsonContent(OpenApiDocumentSchema, "The OpenAPI 3.1 document."),
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

export function handler(app: App): RouteHandler<typeof route, AppEnv> {
  return (c) => {
    c.header("Cache-Control", CACHE_CONTROL);
    return c.json(openApiDocument(app) as unknown as Record<string, unknown>, 200);
  };
}
