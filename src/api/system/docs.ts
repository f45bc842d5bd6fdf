/** `GET /docs`: the interactive API reference (Scalar), reading `/openapi.json`. */
import { createRoute, z, type RouteHandler } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../context";
import { PUBLIC_ERRORS, errorResponses } from "../errors";
import { NO_AUTH } from "../security";

export const route = createRoute({
  method: "get",
  path: "/docs",
  operationId: "getApiReference",
  summary: "Interactive API reference",
  tags: ["System"],
  security: NO_AUTH,
  responses: {
    200: { description: "An HTML page.", content: { "text/html": { schema: z.string() } } },
    ...errorResponses(...PUBLIC_ERRORS),
  },
});

const reference = Scalar<AppEnv>({ url: "/openapi.json", pageTitle: "Agent Platform API" });

export const handler: RouteHandler<typeof route, AppEnv> = async (c) => {
  const response = await reference(c, async () => {});
  // Scalar always answers; the fallback only satisfies the middleware signature.
  return response ?? c.html("", 500);
};
