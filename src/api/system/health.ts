/** `GET /health`: liveness. Touches no storage, so it stays up when a Durable Object is not. */
import { createRoute, type RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { jsonContent } from "../schemas";
import { NO_AUTH } from "../security";
import { HealthSchema } from "./schemas";

export const route = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  summary: "Liveness check",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: jsonContent(HealthSchema, "The gateway is up."),
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

export const handler: RouteHandler<typeof route, AppEnv> = (c) => c.json({ status: "ok" as const }, 200);
